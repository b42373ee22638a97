import type { Recogniser } from '../../classify/index.js';
import type { Clock, RandomSource } from '../../clock.js';
import type { Ledger } from '../../ledger/ledger.js';
import type { BackoffOptions } from '../../policy/backoff.js';
import type { RetryBudget, RetryBudgetOptions } from '../../policy/retry-budget.js';
import type { Classification, FailureClass } from '../../types.js';
import type { EventListener } from '../run/events.js';

/** What a `reconcile` function must answer: exactly one of these two shapes. */
export type ReconcileResult = { happened: true; result?: unknown } | { happened: false };

export interface ToolCallInfo {
  runId: string;
  toolName: string;
  idempotencyKey: string;
}

/** Undoes one completed write; `info.idempotencyKey` is the write's own key. */
export type CompensateFunction<Input, Output> = (
  input: Input,
  info: ToolCallInfo & { result: Output | undefined },
) => unknown;

/** A compensation whose undo can be replayed or proven when it is left in doubt. */
export interface Compensation<Input, Output> {
  undo: CompensateFunction<Input, Output>;
  /** The undo's downstream dedupes on the undo's key (`callContext().idempotencyKey`). */
  idempotent?: boolean | undefined;
  /** Proves whether an undo left in doubt happened. */
  reconcile?:
    | ((input: Input, info: ToolCallInfo) => Promise<ReconcileResult> | ReconcileResult)
    | undefined;
}

/** What `check` answers for a result that is really a failure. */
export interface CheckFailure {
  message: string;
  /** Stable code for the fingerprint and the contract. Default `CHECK_FAILED`. */
  code?: string | undefined;
  /** Default VALIDATION: the call ran, and its answer says it did not do the job. */
  failureClass?: FailureClass | undefined;
}

/**
 * How recourse treats one tool. A tool whose policy (and `defaultPolicy`) does not say
 * `sideEffects` is treated as one that may write: never re-sent blindly once a failure
 * may have changed something.
 */
// biome-ignore lint/suspicious/noExplicitAny: the default lets a policy declare its own input type (`(i: { repo: string }) => ...`) where `unknown` would reject it.
export interface ToolPolicy<Input = any, Output = any> {
  /**
   * `true`: a write, claimed in the ledger and never blindly retried once it may have
   * landed. `false`: a read, safe to retry. Not declared: may write (see above).
   */
  sideEffects?: boolean | undefined;
  /** The downstream dedupes on the idempotency key, so a replay behind it is safe. */
  idempotent?: boolean | undefined;
  /** Reads the downstream state to prove whether an in-doubt write happened. */
  reconcile?:
    | ((input: Input, info: ToolCallInfo) => Promise<ReconcileResult> | ReconcileResult)
    | undefined;
  /** A degraded alternative, used explicitly (the outcome becomes PARTIAL_RESULT). */
  fallback?:
    | ((input: Input, info: ToolCallInfo & { classification: Classification }) => unknown)
    | undefined;
  /**
   * Undoes a completed write; `recovery.compensate()` runs them newest first, each once.
   * A function, or `{ undo, idempotent?, reconcile? }` when an undo left in doubt (a lost
   * response, a crash mid-undo) may be replayed behind its key (`idempotent: true`, e.g.
   * a DELETE) or proven (`reconcile`), instead of being left to a person.
   */
  compensate?: CompensateFunction<Input, Output> | Compensation<Input, Output> | undefined;
  /**
   * Turns a returned value into a failure (a test run that reports FAIL, a 200 saying
   * error): a `CheckFailure`, or its message alone; `undefined`, `null` or `false` let the
   * value through. A check that throws fails the call (`CHECK_THREW`).
   */
  check?:
    | ((result: Output, input: Input) => CheckFailure | string | false | null | undefined)
    | undefined;
  /** What the call touches, as canonical resource strings (see urlResource & co.). */
  resource?: ((input: Input) => string | readonly string[]) | undefined;
  /** What the call needs, for scope rules over capabilities. */
  capability?: string | undefined;
  /** Your own idempotency key for the logical operation. */
  key?: ((input: Input, info: { runId: string; toolName: string }) => string) | undefined;
  /** Attempts of one call for this tool. Default: `retry.maxAttempts`. */
  maxAttempts?: number | undefined;
  /** Deadline of one attempt, in ms. Default: `retry.timeoutMs` (none). */
  timeoutMs?: number | undefined;
  /** Retry-budget bucket. Default: the tool name. */
  dependency?: string | undefined;
  /** Names what the result lacks when the fallback is used (PARTIAL_RESULT). */
  missingEvidence?: string | undefined;
  /**
   * Read tools that show whether this write landed (a list by idempotency key, an outbox),
   * named to the model when the write is left in doubt with no `reconcile` and no
   * `idempotent`: the one safe way on. Default: the read tools of the same `dependency`.
   */
  verifyWith?: string | readonly string[] | undefined;
}

/** The runtime's retry defaults (the pure `decideRecovery` keeps 3 attempts and no time budget). */
export const retryDefaults = { maxAttempts: 5, maxElapsedMs: 30_000 } as const;

export interface RetryOptions extends BackoffOptions {
  /** Attempts of one call, the first included. Default 5. */
  maxAttempts?: number | undefined;
  /**
   * How long one call (a tool call or a model request) may spend recovering from
   * transient failures, counted from its first failure: no retry is made that would
   * start later. Default 30 s.
   */
  maxElapsedMs?: number | undefined;
  /** Deadline of one attempt of any tool, in ms; a policy's `timeoutMs` overrides it. */
  timeoutMs?: number | undefined;
  /**
   * Per-dependency retry throttling; `false` turns it off. Default: on, in-process. Pass a
   * `RetryBudget` (e.g. `createRedisRetryBudget` from `@recourse/store-redis`) to share one
   * across processes; its methods may return promises, and one that throws or rejects
   * never breaks a call.
   */
  budget?: RetryBudget | RetryBudgetOptions | false | undefined;
}

export interface ScopeOptions {
  allow?: readonly string[] | undefined;
  deny?: readonly string[] | undefined;
}

/**
 * The run is executed by a durable-execution engine (DBOS, Restate, ...) that runs one
 * execution of it at a time and runs it again from its journal after a crash. A write's
 * claim left in flight by an earlier execution of the run is then taken over at once (the
 * write is in doubt: reconcile, a replay behind its key, or a person), never waited out as
 * `IN_FLIGHT` until a lease ends. A recovery wait of a claimed write keeps the claim until
 * the wait's end, so an execution resumed during the wait waits out the rest before it
 * takes the claim over: nothing is sent before a Retry-After, even across a restart.
 */
export interface EngineOptions {
  /**
   * How waits of a second or more are slept (the engine's durable sleep, e.g. Restate's
   * `ctx.sleep`). Default: the run's clock.
   */
  sleep?: ((ms: number) => Promise<void>) | undefined;
}

export interface RecoveryOptions {
  runId: string;
  /** Set by the engine adapters (`@recourse/dbos`, `@recourse/restate`): see `EngineOptions`. */
  engine?: EngineOptions | undefined;
  ledger?: Ledger | undefined;
  policies?: Record<string, ToolPolicy> | undefined;
  /** The policy of every tool without its own; a tool's own policy overrides it field by field. */
  defaultPolicy?: ToolPolicy | undefined;
  retry?: RetryOptions | undefined;
  /** Repairs per failure fingerprint before the step is poison. Default 2. */
  repairBudget?: number | undefined;
  scope?: ScopeOptions | undefined;
  /** 'stop' (default): the run ends at the first denial. 'continue': only denied resources stay blocked. */
  onDenial?: 'stop' | 'continue' | undefined;
  /**
   * Calls of one turn (one model response): by default a write, or a tool that may write,
   * waits until every earlier call of its turn has settled, and is checked again before it
   * runs. `true`: writes run side by side, waiting only for earlier calls whose resources
   * overlap theirs (as reads always do). Default false.
   */
  parallelWrites?: boolean | undefined;
  /** 'stop' (default): a poison step ends the run. 'replan': it stays quarantined, the run asks for a new plan. */
  onPoison?: 'stop' | 'replan' | undefined;
  /** Run the compensations of completed writes when the run ends FAILED or BLOCKED. Default false. */
  autoCompensate?: boolean | undefined;
  /** What a BLOCKED outcome suggests. Default "request authorized operator". */
  nextPossibleAction?: string | undefined;
  /** Every classification, decision and outcome, as it happens (see `createConsoleTrace`). */
  onEvent?: EventListener | undefined;
  /** Your own error recognisers, consulted before the built-in ones. */
  recognisers?: readonly Recogniser[] | undefined;
  /** How long a duplicate waits for an in-flight write before reporting it. Default 5 s. */
  inFlightWaitMs?: number | undefined;
  /**
   * How long the run has, in ms from its creation (a request's deadline, a job's time
   * limit). Recovery then spends the run's time instead of the call's: a Retry-After that
   * fits in what is left is waited, however long; a transient failure is retried until the
   * next wait would not fit (the dependency's circuit still bounds what is sent), and a
   * call waits for the circuit's next probe while it has time. `retry.maxAttempts` and
   * `retry.maxElapsedMs` no longer bound a retry then. Default: none (the call's budgets).
   */
  deadlineMs?: number | undefined;
  /**
   * How long one ledger operation (a claim, storing a result, reading the run's facts or
   * repair counts) may take before the runtime stops waiting for it. Default 5 s. A claim
   * or a read before execution that does not answer in time fails closed like a store
   * that is down (`LEDGER_UNAVAILABLE`: nothing is sent); a result that could not be
   * stored in time is still returned (the write happened) and reported by a
   * `result.not-stored` event.
   */
  ledgerTimeoutMs?: number | undefined;
  /**
   * An OpenTelemetry tracer for the call spans. Default: the tracer `@recourse/core` of the
   * global provider, when `@opentelemetry/api` is installed. `false`: no spans, no metrics.
   */
  tracer?: unknown;
  clock?: Clock | undefined;
  random?: RandomSource | undefined;
}
