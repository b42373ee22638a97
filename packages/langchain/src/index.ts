// What an application using this adapter needs from the core, so that installing the
// adapter is enough (`@recourse/core` comes along as its dependency).
export {
  isToolCallFailure,
  policyFromAnnotations,
  toolCallFailureOf,
} from '@recourse/core/adapter';
export * from '@recourse/core/agent';
export {
  createRecovery,
  type LangChainRecovery,
  type LangChainRecoveryOptions,
} from './create-recovery.js';
export { InvalidToolCallError, isGraphBubbleUp, ToolMessageError } from './langchain-errors.js';
export { guidanceText } from './recovery-middleware.js';
export { recoveryContractOf } from './tool-messages.js';
