// What an application using this adapter needs from the core, so that installing the
// adapter is enough (`@recourse/core` comes along as its dependency).
export * from '@recourse/core/agent';
export { type ChatTurnResult, executeChatToolCalls } from './chat/execute-chat-tool-calls.js';
export { readChatStream } from './chat/read-chat-stream.js';
export { type ChatStep, type RunChatParams, type RunChatResult, runChat } from './chat/run-chat.js';
export type { CompiledTool, ParsedArguments } from './compile-tool.js';
export {
  createRecovery,
  type OpenAIRecovery,
  type OpenAIRecoveryOptions,
} from './create-recovery.js';
export {
  type AnyRecoveryToolSet,
  defineTools,
  isRecoveryToolSet,
  type RecoveryToolSet,
} from './define-tools.js';
export {
  defaultMaxSteps,
  type ExecuteToolCallsOptions,
  executeToolCalls,
  type TurnResult,
} from './execute-tool-calls.js';
export {
  executeResponseCalls,
  type ResponseTurnResult,
} from './responses/execute-response-calls.js';
export { ResponseFailedError, readResponseStream } from './responses/read-response-stream.js';
export {
  type ResponsesStep,
  type RunResponsesParams,
  type RunResponsesResult,
  runResponses,
} from './responses/run-responses.js';
export { type PendingToolCall, runToolCall, type ToolCallRecord } from './run-tool-call.js';
export { checkStrictCompatible, type StrictVerdict } from './schema/strict-compatible.js';
export {
  isZod3Schema,
  isZod4Schema,
  type JsonSchema,
  toJsonSchema,
} from './schema/to-json-schema.js';
export { type SchemaIssue, validateJsonSchema } from './schema/validate-json-schema.js';
export { NoSuchToolError, ToolInputValidationError } from './tool-errors.js';
export type { InferToolInput, RecoveryToolDefinition, ToolExecuteContext } from './tool-types.js';
