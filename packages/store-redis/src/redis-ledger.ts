import {
  type ClaimRequest,
  type ClaimResult,
  checkCounterStep,
  type Denial,
  type JsonValue,
  LeaseLostError,
  type Ledger,
  type LedgerRecord,
  type ResolvedLedgerOptions,
  resolveLeaseMs,
  resolveLedgerOptions,
} from '@recourse/core';
import { Redis } from 'ioredis';
import { parseDenial, parseRecord, serializeDenial } from './redis-codec.js';
import {
  defaultKeyPrefix,
  type RedisLedgerOptions,
  validateRedisTarget,
} from './redis-ledger-options.js';
import { defineScripts, type LedgerScripts } from './redis-scripts-define.js';
import { toLedgerError } from './to-ledger-error.js';

// Redis expiry only collects garbage; retention itself is decided against the clock.
const expiryMarginMs = 60 * 60 * 1000;

/**
 * A ledger in Redis (standalone or a primary with replicas; not Cluster), shared by any
 * number of processes. Every read-decide-write is one Lua script, so claims are atomic
 * across connections; fencing tokens come from one INCR counter and never repeat.
 */
export class RedisLedger implements Ledger {
  readonly name = 'redis';
  readonly #client: Redis;
  readonly #owned: boolean;
  readonly #scripts: LedgerScripts;
  readonly #timings: ResolvedLedgerOptions;
  readonly #prefix: string;

  constructor(options: RedisLedgerOptions) {
    validateRedisTarget(options);
    this.#timings = resolveLedgerOptions(options);
    this.#prefix = options.keyPrefix ?? defaultKeyPrefix;
    this.#owned = options.client === undefined;
    this.#client = options.client ?? createOwnedClient(options.url);
    this.#scripts = defineScripts(this.#client);
  }

  /** The default lease of a claim, in milliseconds. */
  get leaseMs(): number {
    return this.#timings.leaseMs;
  }

  async claim(request: ClaimRequest): Promise<ClaimResult> {
    const leaseMs = resolveLeaseMs(request.leaseMs, this.#timings);
    const now = this.#now();
    const reply = (await this.#run(() =>
      this.#scripts.claim(
        this.#recordKey(request.key),
        this.#key('token'),
        request.payloadHash,
        String(now),
        String(now + leaseMs),
        String(this.#timings.retentionMs),
        String(this.#ttlMs(leaseMs)),
      ),
    )) as string[];
    const [status, first, second] = reply;
    if (status === 'conflict') return { status: 'conflict' };
    if (status === 'completed') return { status: 'completed', result: JSON.parse(first ?? 'null') };
    if (status === 'in_flight') return { status: 'in_flight', leaseExpiresAt: Number(first) };
    const token = first ?? '';
    return second === 'uncertain' || second === 'expired'
      ? { status: 'acquired', token, previous: second }
      : { status: 'acquired', token };
  }

  async complete(key: string, token: string, result: JsonValue): Promise<void> {
    const text = JSON.stringify(result) ?? 'null';
    const ok = await this.#run(() =>
      this.#scripts.complete(this.#recordKey(key), token, text, String(this.#now()), this.#ttl()),
    );
    if (Number(ok) !== 1) throw new LeaseLostError(key);
  }

  async renew(key: string, token: string, leaseMs?: number | undefined): Promise<boolean> {
    const renewedMs = resolveLeaseMs(leaseMs, this.#timings);
    const now = this.#now();
    const ok = await this.#run(() =>
      this.#scripts.renew(
        this.#recordKey(key),
        token,
        String(now),
        String(now + renewedMs),
        String(this.#timings.retentionMs),
        String(this.#ttlMs(renewedMs)),
      ),
    );
    return Number(ok) === 1;
  }

  async release(key: string, token: string): Promise<boolean> {
    const ok = await this.#run(() =>
      this.#scripts.release(this.#recordKey(key), token, String(this.#now()), this.#ttl()),
    );
    return Number(ok) === 1;
  }

  async markUncertain(key: string, token: string, note?: string | undefined): Promise<boolean> {
    const ok = await this.#run(() =>
      this.#scripts.markUncertain(
        this.#recordKey(key),
        token,
        String(this.#now()),
        note === undefined ? '0' : '1',
        note ?? '',
        this.#ttl(),
      ),
    );
    return Number(ok) === 1;
  }

  async get(key: string): Promise<LedgerRecord | undefined> {
    const fields = await this.#run(() => this.#client.hgetall(this.#recordKey(key)));
    return parseRecord(key, fields, this.#now(), this.#timings.retentionMs);
  }

  async incrementCounter(runId: string, name: string, by = 1): Promise<number> {
    checkCounterStep(by);
    const value = await this.#run(() =>
      this.#scripts.increment(this.#runKey(runId, 'counters'), name, String(by), this.#ttl()),
    );
    return Number(value);
  }

  async getCounter(runId: string, name: string): Promise<number> {
    const value = await this.#run(() => this.#client.hget(this.#runKey(runId, 'counters'), name));
    return value === null ? 0 : Number(value);
  }

  async addDenial(runId: string, denial: Denial): Promise<void> {
    const identity = JSON.stringify([denial.resource, denial.capability ?? null]);
    await this.#run(() =>
      this.#scripts.addDenial(
        this.#runKey(runId, 'denied'),
        this.#runKey(runId, 'denials'),
        identity,
        serializeDenial(denial),
        this.#ttl(),
      ),
    );
  }

  async listDenials(runId: string): Promise<Denial[]> {
    const items = await this.#run(() => this.#client.lrange(this.#runKey(runId, 'denials'), 0, -1));
    return items.map(parseDenial);
  }

  /** Quits the client the ledger created; a client you passed in stays open. */
  async close(): Promise<void> {
    if (!this.#owned) return;
    const client = this.#client;
    if (client.status === 'ready') {
      try {
        await client.quit();
        return;
      } catch {
        // Fall through: a dying connection cannot say goodbye.
      }
    }
    client.disconnect();
  }

  async #run<T>(command: () => Promise<T>): Promise<T> {
    try {
      return await command();
    } catch (error) {
      throw toLedgerError(error);
    }
  }

  #now(): number {
    return this.#timings.clock.now();
  }

  #ttl(): string {
    return String(this.#ttlMs(this.#timings.leaseMs));
  }

  #ttlMs(leaseMs: number): number {
    return Math.ceil(leaseMs + this.#timings.retentionMs + expiryMarginMs);
  }

  #key(suffix: string): string {
    return `${this.#prefix}${suffix}`;
  }

  #recordKey(key: string): string {
    return this.#key(`record:${key}`);
  }

  #runKey(runId: string, suffix: string): string {
    return this.#key(`run:${runId}:${suffix}`);
  }
}

/**
 * A client that reports a dead server within about a second instead of queueing
 * commands forever: one retry per command, short connect and command timeouts.
 */
function createOwnedClient(url: string): Redis {
  const client = new Redis(url, {
    lazyConnect: true,
    maxRetriesPerRequest: 1,
    connectTimeout: 5_000,
    commandTimeout: 5_000,
    retryStrategy: (times) => Math.min(times * 100, 1_000),
  });
  // Connection errors surface on each command as LedgerUnavailableError; without a
  // listener ioredis would also print every reconnect failure.
  client.on('error', () => {});
  return client;
}
