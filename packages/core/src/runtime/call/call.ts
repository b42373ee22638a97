import type { Classifier } from '../../classify/index.js';
import type { Clock, RandomSource } from '../../clock.js';
import { boundKey, keyFromPayloadHash, payloadHash } from '../../keys/idempotency-key.js';
import type { Ledger, StoredResult } from '../../ledger/ledger.js';
import type { ResolvedBackoff } from '../../policy/backoff.js';
import type { RetryBudget } from '../../policy/retry-budget.js';
import type { Classification, FailureClass, RecoveryAction } from '../../types.js';
import type { LedgerDeadline } from '../ledger-deadline.js';
import type { ResolvedTool } from '../options/tool-table.js';
import type { Emitter } from '../run/emitter.js';
import type { RecoveryEvent } from '../run/events.js';
import type { RunMemory } from '../run/run-memory.js';
import type { CallSpan, Telemetry } from '../telemetry.js';
import type { HeldLease, LeaseRenewer } from './lease-renewer.js';
import type { ToolCallRequest } from './tool-call.js';

type CallEvent = Extract<RecoveryEvent, { toolCallId: string }>;
type CallEventType = CallEvent['type'];
/** An event's own fields, beyond those every call event carries. */
type CallEventFields<T extends CallEventType> = Omit<
  Extract<CallEvent, { type: T }>,
  'type' | 'runId' | 'tool' | 'toolCallId' | 'idempotencyKey' | 'at'
>;

/** What every call of a run shares. */
export interface RunParts {
  runId: string;
  ledger: Ledger;
  /** Bounds every ledger operation a call waits for (`ledgerTimeoutMs`). */
  deadline: LedgerDeadline;
  clock: Clock;
  random: RandomSource;
  classify: Classifier;
  emitter: Emitter;
  memory: RunMemory;
  renewer: LeaseRenewer;
  budget: RetryBudget | undefined;
  backoff: ResolvedBackoff;
  repairBudget: number;
  /** How long a call may spend recovering from transient failures. */
  maxElapsedMs: number;
  /** When the run's time is up (`deadlineMs` from its start), on the run's clock. */
  deadlineAt: number | undefined;
  onPoison: 'stop' | 'replan';
  inFlightWaitMs: number;
  telemetry: Telemetry | undefined;
}

/** The idempotency key of an operation: the policy's own, or run + tool + input hash. */
export function keyFor(
  runId: string,
  tool: ResolvedTool,
  input: unknown,
  hash: () => string,
): string {
  const own = tool.policy.key;
  return own
    ? boundKey(String(own(input, { runId, toolName: tool.name })))
    : keyFromPayloadHash(runId, tool.name, hash());
}

/**
 * One tool call in progress: its facts (attempts, doubt, the claim it holds) and its
 * identity, derived lazily: a read that never fails never hashes its input.
 */
export class Call {
  readonly run: RunParts;
  readonly tool: ResolvedTool;
  readonly request: ToolCallRequest;
  /** When the first attempt failed: the time budget of the recovery counts from here. */
  failedAt: number | undefined;
  attempts = 0;
  /** The write may have landed: whoever leaves the call must keep the key in doubt. */
  inDoubt = false;
  /** The claim this call holds, if it is a write that acquired one. */
  token: string | undefined;
  lease: HeldLease | undefined;
  /** The first failure, and the recovery that answered the last one: for the outcome. */
  firstFailure: Classification | undefined;
  recoveredBy: RecoveryAction | undefined;
  /** The latest failure and the decision taken on it: what a trace shows if the caller aborts. */
  lastDecided: { failureClass: FailureClass; action: RecoveryAction } | undefined;
  span: CallSpan | undefined;
  #hash: string | undefined;
  #key: string | undefined;

  constructor(run: RunParts, tool: ResolvedTool, request: ToolCallRequest) {
    this.run = run;
    this.tool = tool;
    this.request = request;
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
   * Ends the claim once: `complete` with the stored result, `release`, or `uncertain`.
   * Never throws and never waits past the ledger's deadline. A result the ledger did not
   * take (it failed, or did not answer in time) is reported by `result.not-stored`: the
   * write happened, so the caller still gets its value.
   */
  async settle(how: 'complete' | 'release' | 'uncertain', result?: StoredResult): Promise<void> {
    const token = this.token;
    if (token === undefined) return;
    this.token = undefined;
    this.lease?.release();
    const { ledger, deadline } = this.run;
    try {
      if (how === 'complete')
        await deadline.bound('complete', ledger.complete(this.key, token, result ?? {}));
      else if (how === 'release') await deadline.bound('release', ledger.release(this.key, token));
      else
        await deadline.bound(
          'markUncertain',
          ledger.markUncertain(this.key, token, `${this.tool.name}: outcome unknown`),
        );
    } catch (error) {
      // Lease lost (another worker owns the key), store down or hung: the record stays in
      // flight, expires, and the next claimer sees `previous: 'expired'` and reconciles.
      // Until then a duplicate finds it in flight. Never a silent re-send.
      if (how === 'complete' && this.run.emitter.active)
        this.emit('result.not-stored', { reason: this.run.classify(error).message });
    }
  }
}
