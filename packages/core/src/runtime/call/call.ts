import { payloadHash } from '../../keys/idempotency-key.js';
import type { StoredResult } from '../../ledger/ledger.js';
import { decideRecovery } from '../../policy/decide-recovery.js';
import type {
  Classification,
  Decision,
  DecisionState,
  FailureClass,
  RecoveryAction,
} from '../../types.js';
import type { ResolvedTool } from '../options/tool-table.js';
import { timeFacts } from '../retry-loop.js';
import type { RecoveryEvent } from '../run/events.js';
import { keyFor, type RunParts } from '../run-parts.js';
import type { CallSpan } from '../telemetry.js';
import type { HeldLease } from './lease-renewer.js';
import { serialiseResult } from './serialise-result.js';
import type { DecidedEnding, OwnedElsewhereEnding, ToolCallRequest } from './tool-call.js';

type CallEvent = Extract<RecoveryEvent, { toolCallId: string }>;
type CallEventType = CallEvent['type'];
/** An event's own fields, beyond those every call event carries. */
type CallEventFields<T extends CallEventType> = Omit<
  Extract<CallEvent, { type: T }>,
  'type' | 'runId' | 'tool' | 'toolCallId' | 'idempotencyKey' | 'at'
>;

const nothing = () => {};

/** The lease of a claim nothing renews (a run under a durable engine). */
const unrenewed: HeldLease = { lost: false, release() {} };

/** A claim a write holds in the ledger: its token and the lease kept alive for it. */
interface HeldClaim {
  readonly token: string;
  readonly lease: HeldLease;
}

/**
 * Where a call is in its life, changed only by the call's own transitions below.
 * `claiming`: a write asking the ledger for its key; `attempting`: executing (a write
 * holds its claim); `in-doubt`: an attempt may have landed, so nothing is re-sent unless a
 * reconcile proves it did not or the downstream dedupes on the key; `settled`: the claim
 * was given back, completed or marked uncertain.
 */
type CallState =
  | { readonly phase: 'claiming' }
  | { readonly phase: 'attempting'; readonly claim: HeldClaim | undefined }
  | { readonly phase: 'in-doubt'; readonly claim: HeldClaim }
  | { readonly phase: 'settled'; readonly inDoubt: boolean };

/** How a call ends without a value, beyond its classification and decision. */
export interface EndingDetails {
  error?: unknown;
  repairAttempts?: number | undefined;
}

/**
 * One tool call in progress: its state (above), its counters and its identity, derived
 * lazily: a read that never fails never hashes its input.
 */
export class Call {
  readonly run: RunParts;
  readonly tool: ResolvedTool;
  readonly request: ToolCallRequest;
  /** When the first attempt failed: the time budget of the recovery counts from here. */
  failedAt: number | undefined;
  attempts = 0;
  /** The first failure, and the recovery that answered the last one: for the outcome. */
  firstFailure: Classification | undefined;
  recoveredBy: RecoveryAction | undefined;
  /** The latest failure and the decision taken on it: what a trace shows if the caller aborts. */
  lastDecided: { failureClass: FailureClass; action: RecoveryAction } | undefined;
  span: CallSpan | undefined;
  #state: CallState;
  #hash: string | undefined;
  #key: string | undefined;

  constructor(run: RunParts, tool: ResolvedTool, request: ToolCallRequest) {
    this.run = run;
    this.tool = tool;
    this.request = request;
    this.#state = tool.claims ? { phase: 'claiming' } : { phase: 'attempting', claim: undefined };
  }

  /** The write may have landed: whoever leaves the call must keep the key in doubt. */
  get inDoubt(): boolean {
    const state = this.#state;
    return state.phase === 'in-doubt' || (state.phase === 'settled' && state.inDoubt);
  }

  /** The call holds its claim in the ledger (a write between claim and settle). */
  get holdsClaim(): boolean {
    const state = this.#state;
    return (
      (state.phase === 'attempting' || state.phase === 'in-doubt') && state.claim !== undefined
    );
  }

  /** The token of the claim this call holds, if it holds one. */
  get claimToken(): string | undefined {
    const state = this.#state;
    return state.phase === 'attempting' || state.phase === 'in-doubt'
      ? state.claim?.token
      : undefined;
  }

  /** The lease of the held claim: lost when another worker took the key over. */
  get leaseLost(): boolean {
    const state = this.#state;
    return (
      (state.phase === 'attempting' || state.phase === 'in-doubt') &&
      state.claim?.lease.lost === true
    );
  }

  /** The ledger granted the claim; an earlier holder (`previous`) may have written. */
  claimed(token: string, earlierAttempt: boolean): void {
    if (this.#state.phase !== 'claiming') return;
    const { engine } = this.run;
    // Under an engine the claim is never renewed: this execution is the run's only one.
    engine?.held.add(this.key);
    const lease = engine ? unrenewed : this.run.renewer.hold(this.key, token);
    const claim = { token, lease };
    this.#state = earlierAttempt ? { phase: 'in-doubt', claim } : { phase: 'attempting', claim };
  }

  /** An attempt of a claimed call failed in a way that may have landed, or was abandoned. */
  mayHaveLanded(): void {
    const state = this.#state;
    if (state.phase === 'attempting' && state.claim !== undefined)
      this.#state = { phase: 'in-doubt', claim: state.claim };
  }

  /** A reconcile proved the write did not happen: it may be sent again. */
  provedNotLanded(): void {
    const state = this.#state;
    if (state.phase === 'in-doubt') this.#state = { phase: 'attempting', claim: state.claim };
  }

  get payloadHash(): string {
    this.#hash ??= payloadHash(this.request.input);
    return this.#hash;
  }

  get key(): string {
    this.#key ??= keyFor(this.run.runId, this.tool, this.request.input, () => this.payloadHash);
    return this.#key;
  }

  /** The operation a poison record names: tool and canonical input. */
  get operation(): string {
    return `${this.tool.name}:${this.payloadHash}`;
  }

  /** The key when it can be had (a throwing key function leaves it empty). */
  get knownKey(): string {
    try {
      return this.key;
    } catch {
      return '';
    }
  }

  /** The fields every event of this call carries. */
  base() {
    return {
      runId: this.run.runId,
      tool: this.tool.name,
      toolCallId: this.request.toolCallId,
      idempotencyKey: this.tool.claims ? this.knownKey : '',
      at: this.run.clock.now(),
    };
  }

  /** Tells the run's listener about this call; builds nothing when nobody listens. */
  emit<T extends CallEventType>(type: T, fields: CallEventFields<T>): void {
    if (!this.run.emitter.active) return;
    this.run.emitter.emit({ ...this.base(), type, ...fields } as RecoveryEvent);
  }

  /**
   * How the call ends without a value, decided on what it did (a claim still held is
   * settled on the way out of the call: in doubt → uncertain, else released).
   */
  failed(
    classification: Classification,
    decision: Decision,
    details: EndingDetails = {},
  ): DecidedEnding {
    return {
      ok: false,
      kind: 'decided',
      classification,
      decision,
      inDoubt: this.inDoubt,
      ...(details.error === undefined ? {} : { error: details.error }),
      ...(this.attempts > 0 ? { attempts: this.attempts } : {}),
      ...(details.repairAttempts === undefined ? {} : { repairAttempts: details.repairAttempts }),
      ...this.#keyFact(),
    };
  }

  /** Another worker holds the write's key (in flight, or it took the lease over): send nothing. */
  ownedElsewhere(classification: Classification, decision: Decision): OwnedElsewhereEnding {
    return {
      ok: false,
      kind: 'owned-elsewhere',
      classification,
      decision,
      inDoubt: this.inDoubt,
      ...(this.attempts > 0 ? { attempts: this.attempts } : {}),
      ...this.#keyFact(),
    };
  }

  /** The key an ending tells (a write's, when it could be had), or undefined. */
  get endingKey(): string | undefined {
    return this.tool.claims ? this.knownKey || undefined : undefined;
  }

  #keyFact(): { key?: string } {
    const key = this.endingKey;
    return key === undefined ? {} : { key };
  }

  /**
   * Completes the claim with the call's result, the one way a result reaches the ledger (a
   * write's own success, a reconcile that found the write happened, an undo): when JSON
   * cannot hold the value the record says why, and a `result.unstorable` event says so.
   */
  storeResult<T = void>(value: unknown, next?: () => T): Promise<T> {
    const stored = serialiseResult(value);
    const reason = stored.unstorable;
    if (reason === undefined) return this.settle('complete', stored, next);
    return this.settle('complete', stored, () => {
      this.emit('result.unstorable', { reason });
      return next?.() as T;
    });
  }

  /**
   * Ends the claim once: `complete` with the stored result, `release`, or `uncertain`.
   * Never throws and never waits past the ledger's deadline. A result the ledger did not
   * take (it failed, or did not answer in time) is reported by `result.not-stored`: the
   * write happened, so the caller still gets its value. `next` runs once it is settled,
   * however (its answer is the promise's), so that a caller going on costs no second `then`.
   */
  settle<T = void>(
    how: 'complete' | 'release' | 'uncertain',
    result?: StoredResult,
    next?: () => T,
  ): Promise<T> {
    const after = (next ?? nothing) as () => T;
    const state = this.#state;
    if ((state.phase !== 'attempting' && state.phase !== 'in-doubt') || !state.claim)
      return Promise.resolve(after());
    const { token, lease } = state.claim;
    this.#state = { phase: 'settled', inDoubt: how === 'uncertain' };
    lease.release();
    this.run.engine?.held.delete(this.key);
    const { ledger, deadline } = this.run;
    // Lease lost (another worker owns the key), store down or hung: the record stays in
    // flight, expires, and the next claimer sees `previous: 'expired'` and reconciles.
    // Until then a duplicate finds it in flight. Never a silent re-send.
    const notStored = (error: unknown) => {
      if (how === 'complete' && this.run.emitter.active)
        this.emit('result.not-stored', { reason: this.run.classify(error).message });
      return after();
    };
    try {
      const answer: Promise<unknown> =
        how === 'complete'
          ? deadline.bound('complete', ledger.complete(this.key, token, result ?? {}))
          : how === 'release'
            ? deadline.bound('release', ledger.release(this.key, token))
            : deadline.bound(
                'markUncertain',
                ledger.markUncertain(this.key, token, `${this.tool.name}: outcome unknown`),
              );
      return answer.then(after, notStored);
    } catch (error) {
      return Promise.resolve(notStored(error));
    }
  }
}

// The endings live with the request and the result they become (tool-call.ts).
export type {
  CallEnding,
  CallFailureEnding,
  CallSuccessEnding,
  DecidedEnding,
  OwnedElsewhereEnding,
  RefusedEnding,
  StopRequest,
} from './tool-call.js';

/** Extra facts of the moment: what the budget, the repair count or a reconcile said. */
export type MomentFacts = Partial<
  Pick<
    DecisionState,
    | 'repairAttempts'
    | 'repairsUnknown'
    | 'retryBudgetExhausted'
    | 'retryBudgetWaitMs'
    | 'reconciled'
    | 'attempts'
  >
>;

/** The policy's answer for this call: its facts in a `DecisionState`, the run's budgets. */
export function decideForCall(
  call: Call,
  classification: Classification,
  facts: MomentFacts = {},
): Decision {
  const { tool, run } = call;
  return decideRecovery(
    {
      tool: tool.name,
      failureClass: classification.failureClass,
      code: classification.code,
      inDoubt: call.inDoubt,
      checkpointKey: tool.claims && tool.policy.idempotent ? call.key : undefined,
      reconcilable: tool.claims && tool.policy.reconcile !== undefined,
      hasFallback: tool.policy.fallback !== undefined,
      attempts: facts.attempts ?? call.attempts,
      repairAttempts: facts.repairAttempts ?? 0,
      repairsUnknown: facts.repairsUnknown,
      retryAfterMs: classification.retryAfterMs,
      reconciled: facts.reconciled,
      retryBudgetExhausted: facts.retryBudgetExhausted,
      retryBudgetWaitMs: facts.retryBudgetWaitMs,
      ...timeFacts(run.clock, call.failedAt, run.deadlineAt),
    },
    {
      maxAttempts: tool.maxAttempts,
      maxElapsedMs: run.maxElapsedMs,
      repairBudget: run.repairBudget,
      backoff: run.backoff,
      random: run.random,
      onPoison: run.onPoison,
    },
  );
}
