import type { Clock } from '@recourse/core';
import { httpError, timeoutError } from './downstream-errors.js';
import { type FaultPlan, type FaultScheduleOptions, planFault } from './fault-schedule.js';
import type { StepInput, StepSpec } from './job-steps.js';
import { operationOf } from './job-steps.js';
import { drawFor } from './prng.js';

export interface OutageWindow {
  dependency: string;
  startMs: number;
  endMs: number;
}

export interface DownstreamOptions {
  clock: Clock;
  faults: FaultScheduleOptions;
  outage: OutageWindow;
  /** How long a client waits before it gives up on a request. Default 5 s. */
  timeoutMs?: number | undefined;
}

/** One request as the downstream sees it. */
export interface DownstreamRequest {
  step: StepSpec;
  input: StepInput;
  idempotencyKey: string;
}

/** The downstream's truth about one operation. */
export interface OperationRecord {
  write: boolean;
  plan: FaultPlan;
  requests: number;
  firstRequestAt: number | undefined;
  /** Rate limited: refusals given so far, and until when the last one asked to wait. */
  refusals: number;
  limitedUntil: number;
  /** Effects that landed. More than one for a write is a duplicate write. */
  applied: number;
  /** Idempotency keys of landed requests: what dedupe and reconcile look up. */
  keys: Set<string>;
  /** Requests of this operation that reached its dependency during the outage. */
  outageRequests: number;
}

export interface DownstreamCounters {
  requests: number;
  /**
   * Re-sends of a failure that no retry can fix (422, 403, 412) with the same input: by
   * the retry layer or by the agent calling again unchanged (a repair or a re-read changes
   * the input, so the next request is not wasted).
   */
  wastedAttempts: number;
  outageRequests: number;
  /** Operations (job steps) that sent at least one request into the outage window. */
  outageOperations: number;
  reconcileReads: number;
}

const unretryable = new Set([403, 412, 422]);

/**
 * An in-process downstream that records every effect, keyed by business operation (job
 * and step). Idempotent writes dedupe on the idempotency key; other writes apply every
 * request that lands. Faults follow the seeded schedule and a virtual-time outage window.
 */
export class Downstream {
  readonly records = new Map<string, OperationRecord>();
  readonly counters: DownstreamCounters = {
    requests: 0,
    wastedAttempts: 0,
    outageRequests: 0,
    outageOperations: 0,
    reconcileReads: 0,
  };
  readonly #options: DownstreamOptions;
  /** The last failure status per (operation, input): what a repeat of it would meet again. */
  readonly #lastFailure = new Map<string, number>();

  constructor(options: DownstreamOptions) {
    this.#options = options;
  }

  record(step: StepSpec, input: Pick<StepInput, 'job' | 'step'>): OperationRecord {
    const operation = operationOf(input);
    let record = this.records.get(operation);
    if (!record) {
      record = {
        write: step.kind === 'write',
        plan: planFault(this.#options.faults, operation, step),
        requests: 0,
        firstRequestAt: undefined,
        refusals: 0,
        limitedUntil: 0,
        applied: 0,
        keys: new Set(),
        outageRequests: 0,
      };
      this.records.set(operation, record);
    }
    return record;
  }

  async request(request: DownstreamRequest): Promise<{ ok: true; operation: string }> {
    const { step, input, idempotencyKey } = request;
    const { clock, outage } = this.#options;
    const timeoutMs = this.#options.timeoutMs ?? 5_000;
    const operation = operationOf(input);
    const record = this.record(step, input);
    const n = ++record.requests;
    const at = clock.now();
    record.firstRequestAt ??= at;
    this.counters.requests++;
    const attemptKey = `${operation}|${input.fixed}|${input.version}`;
    const previous = this.#lastFailure.get(attemptKey);
    if (previous !== undefined && unretryable.has(previous)) this.counters.wastedAttempts++;
    const latency = 20 + Math.round(drawFor(operation, n, 'latency') * 60);
    const fail = async (status: number, headers?: Record<string, string>) => {
      await clock.sleep(latency);
      this.#lastFailure.set(attemptKey, status);
      throw httpError(operation, status, headers);
    };

    if (step.dependency === outage.dependency && at >= outage.startMs && at < outage.endMs) {
      this.counters.outageRequests++;
      if (record.outageRequests++ === 0) this.counters.outageOperations++;
      return fail(503);
    }
    const { plan } = record;
    switch (plan.kind) {
      case 'timeout-before-write':
        if (n <= plan.requests) {
          await clock.sleep(timeoutMs);
          this.#lastFailure.set(attemptKey, 0);
          throw timeoutError();
        }
        break;
      case 'timeout-after-write':
        if (n <= plan.requests) {
          await clock.sleep(latency);
          this.#apply(step, record, idempotencyKey);
          await clock.sleep(timeoutMs - latency); // the response is lost on the way back
          this.#lastFailure.set(attemptKey, 0);
          throw timeoutError();
        }
        break;
      case 'rate-limited':
        // A limiter refuses `requests` times, each time for `retryAfterS`, and refuses a
        // request that comes back early too, naming the wait that is left: ignoring
        // Retry-After buys nothing.
        if (at < record.limitedUntil) {
          const left = Math.ceil((record.limitedUntil - at) / 1_000);
          return fail(429, { 'retry-after': String(left) });
        }
        if (record.refusals < plan.requests) {
          record.refusals++;
          record.limitedUntil = at + plan.retryAfterS * 1_000;
          return fail(429, { 'retry-after': String(plan.retryAfterS) });
        }
        break;
      case 'unavailable-burst':
        if (at < record.firstRequestAt + plan.burstMs) return fail(503);
        break;
      case 'validation':
        if (!input.fixed) return fail(422);
        break;
      case 'forbidden':
        return fail(403);
      case 'stale-state':
        if (input.version < 2) return fail(412);
        break;
    }
    await clock.sleep(latency);
    this.#apply(step, record, idempotencyKey);
    this.#lastFailure.delete(attemptKey);
    return { ok: true, operation };
  }

  /** The reconcile read: did a request with this key land for this operation? */
  async lookup(step: StepSpec, input: StepInput, idempotencyKey: string): Promise<boolean> {
    this.counters.reconcileReads++;
    await this.#options.clock.sleep(20);
    return this.record(step, input).keys.has(idempotencyKey);
  }

  /** A fresh read of the operation's state (what a re-observe does before it retries). */
  async observe(): Promise<{ version: number }> {
    await this.#options.clock.sleep(30);
    return { version: 2 };
  }

  #apply(step: StepSpec, record: OperationRecord, key: string): void {
    if (step.kind !== 'write') return;
    if (step.guard === 'idempotent' && record.keys.has(key)) return; // deduped on the key
    record.applied++;
    record.keys.add(key);
  }
}
