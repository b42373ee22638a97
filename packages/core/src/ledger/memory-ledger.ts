import { InvalidOptionsError, LeaseLostError } from '../errors.js';
import { markAnswersAtOnce } from './answers-at-once.js';
import type {
  ClaimRequest,
  ClaimResult,
  FactWatch,
  Ledger,
  LedgerOptions,
  LedgerRecord,
  RunFactKind,
  RunFactLists,
  RunFacts,
  StoredResult,
} from './ledger.js';
import {
  ClaimTokens,
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

export interface MemoryLedgerOptions extends LedgerOptions {
  /**
   * Most records kept. Past it, the oldest completed records are dropped first (a
   * duplicate of a dropped write is then executed again, as after its retention); records
   * in flight or in doubt are never dropped, so the bound can be exceeded while they last.
   * Default: unbounded (records still go after `retentionMs`).
   */
  maxRecords?: number | undefined;
}

// Records examined for retention per claim: sweeping a bounded slice keeps every claim
// O(1) while still collecting everything over time (the cursor cycles through the map).
const sweepSlice = 4;

/**
 * A ledger in this process's memory: for tests and single-process agents. Every method
 * reads and writes synchronously before its first await, so claims are atomic within
 * the process. Nothing survives a restart; use `SqliteLedger` for that.
 */
export class MemoryLedger implements Ledger {
  readonly name = 'memory';
  readonly #options: ResolvedLedgerOptions;
  readonly #maxRecords: number;
  readonly #records = new Map<string, StoredRecord>();
  readonly #tokens = new ClaimTokens();
  readonly #repairs = new Map<string, number>();
  readonly #facts = new Map<string, Map<string, unknown>>();
  readonly #watchers = new Map<string, Set<() => void>>();
  #cursor: Iterator<[string, StoredRecord]> | undefined;

  constructor(options: MemoryLedgerOptions = {}) {
    this.#options = resolveLedgerOptions(options);
    const maxRecords = options.maxRecords ?? Number.POSITIVE_INFINITY;
    if (!(typeof maxRecords === 'number' && maxRecords >= 1)) {
      throw new InvalidOptionsError('maxRecords', `must be a number >= 1, got ${maxRecords}`);
    }
    this.#maxRecords = maxRecords;
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
    const now = this.#now();
    this.#sweep(now);
    const plan = planClaim(
      this.#records.get(request.key),
      request,
      now,
      this.#options,
      this.#tokens.next(),
    );
    if (plan.write) {
      this.#records.set(request.key, plan.write);
      if (this.#records.size > this.#maxRecords) this.#evict();
    }
    // Results are immutable text and the plan is fresh: nothing to copy.
    return plan.result;
  }

  async complete(key: string, token: string, result: StoredResult): Promise<void> {
    const stored: StoredResult = {};
    if (result.json !== undefined) stored.json = String(result.json);
    if (result.unstorable !== undefined) stored.unstorable = String(result.unstorable);
    const next = planComplete(this.#records.get(key), token, this.#now(), stored);
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
    return toLedgerRecord(stored);
  }

  async addRepair(runId: string, fingerprint: string): Promise<number> {
    const id = pairId(runId, fingerprint);
    const value = (this.#repairs.get(id) ?? 0) + 1;
    this.#repairs.set(id, value);
    return value;
  }

  async getRepairs(runId: string, fingerprint: string): Promise<number> {
    return this.#repairs.get(pairId(runId, fingerprint)) ?? 0;
  }

  async addFact<K extends RunFactKind>(
    runId: string,
    kind: K,
    id: string,
    fact: RunFacts[K],
  ): Promise<boolean> {
    const bucket = pairId(runId, kind);
    let facts = this.#facts.get(bucket);
    if (!facts) {
      facts = new Map();
      this.#facts.set(bucket, facts);
    }
    if (facts.has(id)) return false;
    facts.set(id, structuredClone(fact));
    // Synchronous, so every runtime sharing this ledger knows before its next call.
    for (const onChange of this.#watchers.get(runId) ?? []) {
      try {
        onChange();
      } catch {
        // A watcher's bug must not fail the write that taught the run something.
      }
    }
    return true;
  }

  async listFacts(runId: string): Promise<RunFactLists> {
    const list = <K extends RunFactKind>(kind: K): RunFacts[K][] => {
      const facts = this.#facts.get(pairId(runId, kind));
      return facts ? [...facts.values()].map((fact) => structuredClone(fact) as RunFacts[K]) : [];
    };
    return {
      denial: list('denial'),
      grant: list('grant'),
      poison: list('poison'),
      escalation: list('escalation'),
    };
  }

  watchFacts(runId: string, onChange: () => void): FactWatch {
    let watchers = this.#watchers.get(runId);
    if (!watchers) {
      watchers = new Set();
      this.#watchers.set(runId, watchers);
    }
    watchers.add(onChange);
    const all = this.#watchers;
    return {
      live: true,
      close() {
        watchers.delete(onChange);
        if (watchers.size === 0 && all.get(runId) === watchers) all.delete(runId);
      },
    };
  }

  async close(): Promise<void> {}

  /** Drops the records past retention among the next few the cursor reaches. */
  #sweep(now: number): void {
    for (let i = 0; i < sweepSlice; i++) {
      this.#cursor ??= this.#records.entries();
      const next = this.#cursor.next();
      if (next.done) {
        this.#cursor = undefined;
        return;
      }
      const [key, stored] = next.value;
      if (isPastRetention(stored, now, this.#options.retentionMs)) this.#records.delete(key);
    }
  }

  /** Over `maxRecords`: drops the oldest completed record (maps iterate in insertion order). */
  #evict(): void {
    for (const [key, stored] of this.#records) {
      if (stored.state === 'completed') {
        this.#records.delete(key);
        return;
      }
    }
  }

  #now(): number {
    return this.#options.clock.now();
  }
}

// Every method reads and writes before it returns: no deadline is set on its answers.
markAnswersAtOnce(MemoryLedger.prototype);

// JSON keeps the two parts apart whatever characters they contain.
function pairId(a: string, b: string): string {
  return JSON.stringify([a, b]);
}
