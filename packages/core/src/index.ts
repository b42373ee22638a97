export {
  type Classifier,
  type ClassifierOptions,
  type ClassifyHints,
  classifyFailure,
  createClassifier,
  type FailureFacts,
  type HeaderSource,
  parseRetryAfterMs,
  type RecognisedFailure,
  type Recogniser,
  readFailureFacts,
  redactSecrets,
  toSafeMessage,
} from './classify/index.js';
export { type Clock, type RandomSource, systemClock, systemRandom } from './clock.js';
export {
  IdempotencyConflictError,
  InvalidOptionsError,
  LeaseLostError,
  LedgerUnavailableError,
  RecourseError,
  type RecourseErrorCode,
} from './errors.js';
export { canonicalJson } from './keys/canonical-json.js';
export {
  boundKey,
  deriveIdempotencyKey,
  hashText,
  type KeyParts,
  maxIdempotencyKeyLength,
  payloadHash,
} from './keys/idempotency-key.js';
export {
  type ClaimRequest,
  type ClaimResult,
  type Denial,
  defaultLeaseMs,
  defaultRetentionMs,
  type Ledger,
  type LedgerOptions,
  type LedgerRecord,
  type LedgerRecordState,
} from './ledger/ledger.js';
export { MemoryLedger } from './ledger/memory-ledger.js';
export { checkCounterStep, resolveLeaseMs } from './ledger/record-rules.js';
export {
  type ResolvedLedgerOptions,
  resolveLedgerOptions,
} from './ledger/resolve-ledger-options.js';
export {
  type BackoffOptions,
  type BackoffResult,
  computeBackoff,
  defaultBackoff,
  type ResolvedBackoff,
} from './policy/backoff.js';
export {
  type DecideOptions,
  type DecisionContext,
  decideRecovery,
  defaultMaxAttempts,
  defaultRepairBudget,
} from './policy/decide-recovery.js';
export {
  type FingerprintParts,
  failureFingerprint,
  normalizeMessage,
} from './policy/fingerprint.js';
export {
  canRetryWithin,
  createRetryBudget,
  type LocalRetryBudget,
  type ResolvedRetryBudgetOptions,
  type RetryBudget,
  type RetryBudgetOptions,
  recordBudgetOutcome,
  resolveRetryBudgetOptions,
} from './policy/retry-budget.js';
export type {
  ApprovalAnswer,
  ApprovalCall,
  ApprovalRequest,
} from './runtime/approval.js';
export type { BlockCheck } from './runtime/approval-check.js';
export type { AccessGrant } from './runtime/approval-grants.js';
export {
  type CallContext,
  callContext,
  currentCallContext,
  runInCallContext,
} from './runtime/call-context.js';
export type { EventListener, RecoveryEvent, RecoveryEventType } from './runtime/events.js';
export {
  type LeaseHeartbeat,
  type LeaseHeartbeatOptions,
  leaseRenewalIntervalMs,
  startLeaseHeartbeat,
} from './runtime/lease-heartbeat.js';
export type {
  ReconcileResult,
  RecoveryOptions,
  RetryOptions,
  ToolCallInfo,
  ToolPolicy,
} from './runtime/options.js';
export { validateRecoveryOptions } from './runtime/options.js';
export type { Outcome } from './runtime/outcome.js';
export { buildContract, contractText, type RecoveryContract } from './runtime/recovery-contract.js';
export {
  createRecoveryRuntime,
  type RecoveryRuntime,
  type ToolCallFailure,
  type ToolCallRequest,
  type ToolCallResult,
} from './runtime/recovery-runtime.js';
export type { SdkFailure } from './runtime/sdk-failure.js';
export { modelValue, type ToolCallSuccess } from './runtime/tool-call.js';
export {
  canonicaliseResource,
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
export {
  type Classification,
  type Decision,
  type DecisionState,
  type FailureClass,
  failureClasses,
  type JsonValue,
  type RecoveryAction,
  type RecoveryBudgets,
  recoveryActions,
} from './types.js';
