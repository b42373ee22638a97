export { type AiSdkRecovery, createRecovery } from './create-recovery.js';
export { isMcpErrorResult, McpToolError, policyFromAnnotations } from './mcp-result.js';
export { ToolCallFailedError } from './tool-call-failed-error.js';
