// What an application using this adapter needs from the core, so that installing the
// adapter is enough (`@recourse/core` comes along as its dependency).

export {
  isMcpErrorResult,
  isToolCallFailure,
  McpToolError,
  policyFromAnnotations,
  toolCallFailureOf,
} from '@recourse/core/adapter';
export * from '@recourse/core/agent';
export {
  type AiSdkRecovery,
  type AiSdkRecoveryOptions,
  createRecovery,
  type ToolPolicies,
} from './create-recovery.js';
export { type ApprovalAnswerPart, readApprovalAnswers } from './tool-approval.js';
export type { ToolApprovalOptions } from './tool-approval-function.js';
export { ToolCallFailedError } from './tool-call-failed-error.js';
export type { FailureMode } from './wrap-tool.js';
