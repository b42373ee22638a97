export {
  type AiSdkRecovery,
  type AiSdkRecoveryOptions,
  createRecovery,
} from './create-recovery.js';
export { isMcpErrorResult, McpToolError, policyFromAnnotations } from './mcp-result.js';
export { type ApprovalAnswerPart, readApprovalAnswers } from './tool-approval.js';
export type { ToolApprovalOptions } from './tool-approval-function.js';
export { ToolCallFailedError } from './tool-call-failed-error.js';
export { isToolCallFailure, toolCallFailureOf } from './tool-failure-result.js';
export type { FailureMode } from './wrap-tool.js';
