// What an application using this adapter needs, so that installing it is enough: the
// core's names (one list, shared by every adapter) and the AI SDK adapter's.

export {
  type ApprovalAnswerPart,
  isMcpErrorResult,
  isToolCallFailure,
  McpToolError,
  policyFromAnnotations,
  readApprovalAnswers,
  ToolCallFailedError,
  type ToolPolicies,
  toolCallFailureOf,
} from '@recourse/ai-sdk';
export * from '@recourse/core/agent';
export {
  createRecovery,
  defaultLedgerPath,
  type RestateRecovery,
  type RestateRecoveryOptions,
} from './create-recovery.js';
export { runIdOf } from './run-id.js';
