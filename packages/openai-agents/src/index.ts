// What an application using this adapter needs from the core, so that installing the
// adapter is enough (`@recourse/core` comes along as its dependency).
export { isToolCallFailure, toolCallFailureOf } from '@recourse/core/adapter';
export * from '@recourse/core/agent';
export {
  type AgentsRecovery,
  type AgentsRecoveryOptions,
  createRecovery,
} from './create-recovery.js';
export { sdkDefaultErrorText, ToolFailureHiddenError } from './hidden-failure.js';
export { isRecoverableTool, tool } from './recoverable-tool.js';
