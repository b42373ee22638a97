// The public surface of @recourse/core: what users of the library and of its adapters
// call. Store authors' helpers are in `@recourse/core/store`; the ledger contract suite
// and the fake clock in `@recourse/core/testing`; the SQLite ledger in `@recourse/core/sqlite`.

// Classifying failures
export {
  type Classifier,
  type ClassifierOptions,
  type ClassifyHints,
  classifyFailure,
  createClassifier,
  type FailureFacts,
  type RecognisedFailure,
  type Recogniser,
  redactSecrets,
} from './classify/index.js';
// Time and chance, injectable
export { type Clock, type RandomSource, systemClock, systemRandom } from './clock.js';
// What the model and the application are told
export type { Outcome, PlanVersions, Recovery } from './contract/outcome.js';
export { contractText, type RecoveryContract } from './contract/recovery-contract.js';
// Errors
export {
  AttemptTimeoutError,
  InvalidOptionsError,
  LeaseLostError,
  LedgerUnavailableError,
  RecourseError,
  type RecourseErrorCode,
  ShellParserUnavailableError,
} from './errors.js';
// Idempotency keys
export { canonicalJson } from './keys/canonical-json.js';
export { deriveIdempotencyKey, type KeyParts } from './keys/idempotency-key.js';
// Ledgers
export type {
  AccessGrant,
  Denial,
  Ledger,
  LedgerOptions,
  LedgerRecord,
  StoredResult,
} from './ledger/ledger.js';
export { MemoryLedger, type MemoryLedgerOptions } from './ledger/memory-ledger.js';
// The policy
export { type BackoffOptions, computeBackoff, defaultBackoff } from './policy/backoff.js';
export {
  type DecideOptions,
  decideRecovery,
  defaultMaxAttempts,
  defaultRepairBudget,
} from './policy/decide-recovery.js';
export {
  createRetryBudget,
  type RetryBudget,
  type RetryBudgetOptions,
} from './policy/retry-budget.js';
export type {
  ApprovalAnswer,
  ApprovalCall,
  ApprovalRequest,
} from './runtime/access/approvals.js';
// The runtime the adapters drive
export type { BlockCheck } from './runtime/access/block-check.js';
export {
  modelValue,
  type ToolCallFailure,
  type ToolCallRequest,
  type ToolCallResult,
  type ToolCallSuccess,
} from './runtime/call/tool-call.js';
export { type CallContext, callContext, currentCallContext } from './runtime/call-context.js';
export { createRecoveryRuntime, type RecoveryRuntime } from './runtime/create-runtime.js';
export type { ModelCallResult } from './runtime/model/call-model.js';
export type { ModelRequest } from './runtime/model/model-request.js';
export type { SdkFailure } from './runtime/model/sdk-failure.js';
export type {
  CheckFailure,
  CompensateFunction,
  Compensation,
  EngineOptions,
  ReconcileResult,
  RecoveryOptions,
  RetryOptions,
  ScopeOptions,
  ToolCallInfo,
  ToolPolicy,
} from './runtime/options/recovery-options.js';
export { optionChecks, validateRecoveryOptions } from './runtime/options/validate-options.js';
export type { CompensationReport } from './runtime/run/compensate.js';
export type { EventListener, RecoveryEvent, RecoveryEventType } from './runtime/run/events.js';
// Resources and the scope guard
export {
  createScopeGuard,
  everything,
  findCoveringDenial,
  type HttpCapability,
  httpCapability,
  httpResource,
  type KubernetesTarget,
  kubernetesResource,
  type PathResourceOptions,
  type PostgresTarget,
  pathResource,
  postgresResource,
  resourceCovers,
  resourcesOverlap,
  type ScopeGuard,
  type ScopeGuardOptions,
  type ScopeVerdict,
  type ShellResourcesOptions,
  s3Resource,
  shellResources,
  sshResource,
  urlResource,
} from './scope/index.js';
// Seeing what recourse did
export {
  type ConsoleTrace,
  type ConsoleTraceOptions,
  consoleTraceLegend,
  createConsoleTrace,
} from './trace/console-trace.js';
// Vocabulary
export {
  type Classification,
  type Decision,
  type DecisionCode,
  type DecisionState,
  decisionCodes,
  type FailureClass,
  failureClasses,
  type JsonValue,
  type PolicyFact,
  policyFactOf,
  policyFacts,
  type RecoveryAction,
  type RecoveryBudgets,
  recoveryActions,
} from './types.js';
