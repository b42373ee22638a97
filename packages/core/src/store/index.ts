// For authors of Ledger stores: the record rules every store applies, and option handling.

export {
  InvalidOptionsError,
  LeaseLostError,
  LedgerUnavailableError,
  RecourseError,
} from '../errors.js';
export { checkStoredResult } from '../ledger/check-stored-result.js';
export {
  type AccessGrant,
  type ClaimRequest,
  type ClaimResult,
  type Denial,
  defaultLeaseMs,
  defaultRetentionMs,
  type Escalation,
  type FactWatch,
  type Ledger,
  type LedgerOptions,
  type LedgerRecord,
  type LedgerRecordState,
  type PoisonedOperation,
  type RunFactKind,
  type RunFactLists,
  type RunFacts,
  runFactKinds,
  type StoredResult,
} from '../ledger/ledger.js';
export {
  type ClaimPlan,
  ClaimTokens,
  createToken,
  isPastRetention,
  planClaim,
  planComplete,
  planMarkUncertain,
  planRelease,
  planRenew,
  type RecordTimings,
  type ReleasePlan,
  resolveLeaseMs,
  type StoredRecord,
  toLedgerRecord,
  toStoredResult,
} from '../ledger/record-rules.js';
export {
  type ResolvedLedgerOptions,
  resolveLedgerOptions,
} from '../ledger/resolve-ledger-options.js';
export {
  createRunFactLists,
  isRunFactKind,
  pushRunFact,
  serializeRunFact,
} from '../ledger/run-fact-text.js';
export {
  canRetryWithin,
  type LocalRetryBudget,
  type ResolvedRetryBudgetOptions,
  type RetryBudget,
  type RetryBudgetOptions,
  recordBudgetOutcome,
  resolveRetryBudgetOptions,
} from '../policy/retry-budget.js';
