// The adapter kit: what an adapter (a thin layer that turns an SDK's tool calls into
// runtime requests and the runtime's answers back into what that SDK expects) builds on.
// Everything here is SDK-independent; the adapter contract suite is in
// `@recourse/core/testing` (`describeAdapterContract`).

export type { RecognisedFailure, Recogniser } from '../classify/index.js';
export {
  contractText,
  type FailureDetails,
  isToolCallFailure,
  type RecoveryContract,
  toFailureResult,
  toolCallFailureOf,
} from '../contract/recovery-contract.js';
export { hasMarker, InvalidOptionsError, RecourseError } from '../errors.js';
export type { ApprovalAnswer, ApprovalCall, ApprovalRequest } from '../runtime/access/approvals.js';
export type { BlockCheck } from '../runtime/access/block-check.js';
export {
  modelValue,
  type ToolCallFailure,
  type ToolCallRequest,
  type ToolCallResult,
  type ToolCallSuccess,
} from '../runtime/call/tool-call.js';
export { callContext } from '../runtime/call-context.js';
export { createRecoveryRuntime } from '../runtime/create-runtime.js';
export type { ModelCallResult } from '../runtime/model/call-model.js';
export type { ModelRequest } from '../runtime/model/model-request.js';
export type { SdkFailure } from '../runtime/model/sdk-failure.js';
export type { RecoveryOptions, ToolPolicy } from '../runtime/options/recovery-options.js';
export { optionChecks, validateRecoveryOptions } from '../runtime/options/validate-options.js';
export type { RecoveryRuntime } from '../runtime/recovery-runtime.js';
export { isThenable } from '../thenable.js';
export type {
  AdapterContractDriver,
  AdapterContractRun,
  ContractCall,
  ContractPlay,
  ContractTool,
} from './adapter-driver.js';
export {
  type AdapterSetup,
  type AnswerText,
  answerText,
  createAdapterRuntime,
  trackWrappedTools,
  usableTools,
  type WrappedToolNames,
  type WrappedToolNamesOptions,
} from './adapter-runtime.js';
export { jsonError, modelText } from './json-checks.js';
export { isMcpErrorResult, McpToolError, mcpErrorText, policyFromAnnotations } from './mcp.js';
