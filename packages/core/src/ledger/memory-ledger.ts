import { LeaseLostError } from '../errors.js';
import type { JsonValue } from '../types.js';
import type {
  ClaimRequest,
  ClaimResult,
  Denial,
  Ledger,
  LedgerOptions,
  LedgerRecord,
} from './ledger.js';
import {
  checkCounterStep,
  createToken,
  isPastRetention,
  planClaim,
  planComplete,
  planMarkUncertain,
  planRelease,
  planRenew,
  type StoredRecord,
  toLedgerRecord,
} from './record-rules.js';
import { type ResolvedLedgerOptions, resolveLedgerOptions } from './resolve-ledger-options.js';

const sweepEvery = 1_000;

/**
 * A ledger in this process's memory: for tests and single-process agents. Every method
 * reads and writes synchronously before its first await, so claims are atomic within
 * the process. Nothing survives a restart; use `SqliteLedger` for that.
 */
export class MemoryLedger implements Ledger {
  readonly name = 'memory';
  readonly #options: ResolvedLedgerOptions;
  readonly #records = new Map<string, StoredRecord>();
  readonly #counters = new Map<string, number>();
  readonly #denials = new Map<string, Denial[]>();
  #claimsSinceSweep = 0;

  constructor(options?: LedgerOptions) {
    this.#options = resolveLedgerOptions(options);
  }

  /** The default lease of a claim, in milliseconds. */
  get leaseMs(): number {
    return this.#options.leaseMs;
  }

  /** How many records are held, including ones past retention not yet swept. */
  get size(): number {
    return this.#records.size;
  }

  async claim(request: ClaimRequest): Promise<ClaimResult> {
    if (++this.#claimsSinceSweep >= sweepEvery) this.#sweep();
    const plan = planClaim(
      this.#records.get(request.key),
      request,
      this.#now(),
      this.#options,
      createToken(),
    );
    if (plan.write) this.#records.set(request.key, plan.write);
    return structuredClone(plan.result);
  }

  async complete(key: string, token: string, result: JsonValue): Promise<void> {
    // Copy before storing, so that the caller mutating its object changes nothing here.
    const next = planComplete(this.#records.get(key), token, this.#now(), structuredClone(result));
    if (!next) throw new LeaseLostError(key);
    this.#records.set(key, next);
  }

  async renew(key: string, token: string, leaseMs?: number | undefined): Promise<boolean> {
    const next = planRenew(this.#records.get(key), token, this.#now(), this.#options, leaseMs);
    if (!next) return false;
    this.#records.set(key, next);
    return true;
  }

  async release(key: string, token: string): Promise<boolean> {
    const plan = planRelease(this.#records.get(key), token, this.#now());
    if (!plan.released) return false;
    if (plan.write) this.#records.set(key, plan.write);
    else this.#records.delete(key);
    return true;
  }

  async markUncertain(key: string, token: string, note?: string | undefined): Promise<boolean> {
    const next = planMarkUncertain(this.#records.get(key), token, this.#now(), note);
    if (!next) return false;
    this.#records.set(key, next);
    return true;
  }

  async get(key: string): Promise<LedgerRecord | undefined> {
    const stored = this.#records.get(key);
    if (!stored) return undefined;
    if (isPastRetention(stored, this.#now(), this.#options.retentionMs)) {
      this.#records.delete(key);
      return undefined;
    }
    return structuredClone(toLedgerRecord(stored));
  }

  async incrementCounter(runId: string, name: string, by = 1): Promise<number> {
    const id = counterId(runId, name);
    const value = (this.#counters.get(id) ?? 0) + checkCounterStep(by);
    this.#counters.set(id, value);
    return value;
  }

  async getCounter(runId: string, name: string): Promise<number> {
    return this.#counters.get(counterId(runId, name)) ?? 0;
  }

  async addDenial(runId: string, denial: Denial): Promise<void> {
    const list = this.#denials.get(runId) ?? [];
    const known = list.some(
      (d) => d.resource === denial.resource && d.capability === denial.capability,
    );
    if (!known) list.push(structuredClone(denial));
    this.#denials.set(runId, list);
  }

  async listDenials(runId: string): Promise<Denial[]> {
    // Denials are flat records of strings and a number: a shallow copy is a full copy.
    return (this.#denials.get(runId) ?? []).map((denial) => ({ ...denial }));
  }

  async close(): Promise<void> {}

  /** Drops records past retention, so that a long-lived process does not grow forever. */
  #sweep(): void {
    this.#claimsSinceSweep = 0;
    const now = this.#now();
    for (const [key, stored] of this.#records) {
      if (isPastRetention(stored, now, this.#options.retentionMs)) this.#records.delete(key);
    }
  }

  #now(): number {
    return this.#options.clock.now();
  }
}

// JSON keeps the two parts apart whatever characters they contain.
function counterId(runId: string, name: string): string {
  return JSON.stringify([runId, name]);
}
