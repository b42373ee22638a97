import { randomBytes } from 'node:crypto';
import {
  type ClaimRequest,
  type ClaimResult,
  checkStoredResult,
  type FactWatch,
  LeaseLostError,
  type Ledger,
  type LedgerRecord,
  type ResolvedLedgerOptions,
  type RunFactKind,
  type RunFactLists,
  type RunFacts,
  resolveLeaseMs,
  resolveLedgerOptions,
  type StoredResult,
  serializeRunFact,
  toStoredResult,
} from '@recourse/core/store';
import { Redis } from 'ioredis';
import { CommandDeadlines } from './command-deadlines.js';
import {
  decodeRecord,
  encodeInFlightRecord,
  parseFactLog,
  parseRecord,
  toFactEntry,
} from './redis-codec.js';
import { RedisFactWatchHub, whenEnded } from './redis-fact-watch.js';
import {
  defaultKeyPrefix,
  type RedisLedgerOptions,
  validateRedisTarget,
} from './redis-ledger-options.js';
import { defineScripts, type LedgerScripts } from './redis-scripts-define.js';
import { redisTarget, replyErrorCode, toLedgerError } from './to-ledger-error.js';

// Redis expiry only collects garbage; retention itself is decided against the clock.
const expiryMarginMs = 60 * 60 * 1000;
// A run's facts and repair counts must outlive its records (a denial stays a denial), but
// not fill Redis forever: each write renews their expiry to the longer of a week and
// seven retention periods.
const minimumFactTtlMs = 7 * 24 * 60 * 60 * 1000;
const factTtlRetentions = 7;
const defaultWatchHeartbeatMs = 5_000;

/**
 * A ledger in Redis (standalone or a primary with replicas; not Cluster), shared by any
 * number of processes. Every read-decide-write is one command or one Lua script, so
 * claims are atomic across connections. A record is one JSON string (`redis-codec.ts`):
 * a claim of a free key, the common case, is then a plain `SET … NX PX … GET`, about a
 * third of a script's server time (a script call measured 8–9 µs against 2.9 µs); only
 * a key that holds something goes on to the claim script. A fencing token is made here,
 * not by the server: 64 random bits per ledger instance and a counter, so tokens never
 * repeat across processes and a claim touches no shared key but its own record.
 */
export class RedisLedger implements Ledger {
  readonly name = 'redis';
  readonly #client: Redis;
  readonly #owned: boolean;
  readonly #scripts: LedgerScripts;
  readonly #timings: ResolvedLedgerOptions;
  readonly #prefix: string;
  readonly #watchHeartbeatMs: number;
  #watches: RedisFactWatchHub | undefined;
  /** The bound on every command of the ledger's own client (a client you pass is yours). */
  readonly #deadlines: CommandDeadlines | undefined;
  #closed = false;
  /** This instance's part of every token it hands out (64 random bits). */
  readonly #tokenPrefix = randomBytes(8).toString('base64url');
  #tokens = 0;
  /** False once the server refused `SET … NX … GET`: claims go through the script. */
  #setNxGet = true;
  /** host:port, for errors. */
  readonly #target: string | undefined;
  /** The owned client's last connection error (its commands only say "closed"). */
  #connectionError: Error | undefined;

  constructor(options: RedisLedgerOptions) {
    validateRedisTarget(options);
    this.#timings = resolveLedgerOptions(options);
    this.#prefix = options.keyPrefix ?? defaultKeyPrefix;
    this.#owned = options.client === undefined;
    this.#client =
      options.client ??
      createOwnedClient(options.url, (error) => {
        this.#connectionError = error;
      });
    this.#target = redisTarget(this.#client.options);
    // A connection that came back makes an old error stale.
    if (this.#owned)
      this.#client.on('ready', () => {
        this.#connectionError = undefined;
      });
    this.#scripts = defineScripts(this.#client);
    this.#deadlines = this.#owned ? new CommandDeadlines() : undefined;
    this.#watchHeartbeatMs = options.watchHeartbeatMs ?? defaultWatchHeartbeatMs;
  }

  /** The default lease of a claim, in milliseconds. */
  get leaseMs(): number {
    return this.#timings.leaseMs;
  }

  async claim(request: ClaimRequest): Promise<ClaimResult> {
    const leaseMs = resolveLeaseMs(request.leaseMs, this.#timings);
    const now = this.#now();
    const recordKey = this.#recordKey(request.key);
    const token = `${this.#tokenPrefix}.${(++this.#tokens).toString(36)}`;
    const ttlMs = String(this.#ttlMs(leaseMs));
    if (
      this.#setNxGet &&
      (await this.#claimFreeKey(recordKey, request, now, leaseMs, token, ttlMs))
    )
      return { status: 'acquired', token };
    const reply = (await this.#run(() =>
      this.#scripts.claim(
        recordKey,
        request.payloadHash,
        String(now),
        String(now + leaseMs),
        String(this.#timings.retentionMs),
        ttlMs,
        token,
      ),
    )) as (string | null)[];
    const [status, first, second] = reply;
    if (status === 'conflict') return { status: 'conflict' };
    if (status === 'completed')
      return { status: 'completed', result: toStoredResult(first, second) };
    if (status === 'in_flight') return { status: 'in_flight', leaseExpiresAt: Number(first) };
    return second === 'uncertain' || second === 'expired'
      ? { status: 'acquired', token, previous: second }
      : { status: 'acquired', token };
  }

  /**
   * The fast path of a claim: one `SET … NX PX … GET`, which writes the in-flight record
   * only if the key is free and answers what the key held. True when it wrote (nil
   * answer); false when the claim script must decide: the key holds a record (any state,
   * maybe past retention), or an earlier version's hash (WRONGTYPE, nothing written), or
   * the server refuses NX with GET (Redis before 7.0: a syntax error), after which this
   * ledger claims through the script only. Any other error is thrown, never taken as a
   * claim.
   */
  async #claimFreeKey(
    recordKey: string,
    request: ClaimRequest,
    now: number,
    leaseMs: number,
    token: string,
    ttlMs: string,
  ): Promise<boolean> {
    const record = encodeInFlightRecord(request.payloadHash, token, now + leaseMs, now);
    try {
      const answer = this.#client.set(recordKey, record, 'PX', ttlMs, 'NX', 'GET');
      return (await (this.#deadlines?.bound(answer) ?? answer)) === null;
    } catch (error) {
      const reply = replyErrorCode(error);
      if (reply === 'WRONGTYPE') return false;
      if (reply === 'ERR') {
        this.#setNxGet = false;
        return false;
      }
      throw toLedgerError(error, this.#target, this.#connectionError);
    }
  }

  async complete(key: string, token: string, result: StoredResult): Promise<void> {
    const { json, unstorable } = checkStoredResult(result);
    const ok = await this.#run(() =>
      this.#scripts.complete(
        this.#recordKey(key),
        token,
        json === undefined ? '0' : '1',
        json ?? '',
        unstorable === undefined ? '0' : '1',
        unstorable ?? '',
        String(this.#now()),
        this.#ttl(),
      ),
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
    const recordKey = this.#recordKey(key);
    const fields = await this.#run(async () => {
      try {
        const text = await this.#client.get(recordKey);
        return text === null ? {} : decodeRecord(text);
      } catch (error) {
        // An earlier version's record is a hash with the same fields.
        if (replyErrorCode(error) !== 'WRONGTYPE') throw error;
        return this.#client.hgetall(recordKey);
      }
    });
    return parseRecord(key, fields, this.#now(), this.#timings.retentionMs);
  }

  async addRepair(runId: string, fingerprint: string): Promise<number> {
    const value = await this.#run(() =>
      this.#scripts.addRepair(this.#runKey(runId, 'repairs'), fingerprint, this.#factTtl()),
    );
    return Number(value);
  }

  async getRepairs(runId: string, fingerprint: string): Promise<number> {
    const value = await this.#run(() =>
      this.#client.hget(this.#runKey(runId, 'repairs'), fingerprint),
    );
    return value === null ? 0 : Number(value);
  }

  async addFact<K extends RunFactKind>(
    runId: string,
    kind: K,
    id: string,
    fact: RunFacts[K],
  ): Promise<boolean> {
    const json = serializeRunFact(kind, id, fact);
    const added = await this.#run(() =>
      this.#scripts.addFact(
        this.#runKey(runId, 'facts'),
        this.#runKey(runId, 'factlog'),
        `${kind}\u0000${id}`,
        toFactEntry(kind, json),
        this.#factTtl(),
        this.#factChannel(runId),
      ),
    );
    return Number(added) === 1;
  }

  async listFacts(runId: string): Promise<RunFactLists> {
    const entries = await this.#run(() =>
      this.#client.lrange(this.#runKey(runId, 'factlog'), 0, -1),
    );
    return parseFactLog(entries);
  }

  /**
   * Pushes new facts of the run through Redis pub/sub: `addFact` publishes on the run's
   * channel in the same script that stores the fact. The first watch opens one subscriber
   * connection (a duplicate of the ledger's client, also for a client you own) that every
   * watch of this ledger shares; `close()` closes it.
   */
  watchFacts(runId: string, onChange: () => void): FactWatch {
    if (this.#closed) return { live: false, close() {} };
    this.#watches ??= new RedisFactWatchHub(
      () =>
        this.#client.duplicate({
          lazyConnect: true,
          // The hub subscribes on every 'ready' itself, so it knows when a watch is live.
          autoResubscribe: false,
          autoResendUnfulfilledCommands: false,
          enableOfflineQueue: false,
        }),
      this.#watchHeartbeatMs,
    );
    return this.#watches.watch(this.#factChannel(runId), onChange);
  }

  /**
   * Closes the watch connection, and quits the client the ledger created; a client you
   * passed in stays open.
   */
  async close(): Promise<void> {
    this.#closed = true;
    const watches = this.#watches?.close();
    this.#watches = undefined;
    this.#deadlines?.close();
    if (this.#owned) await this.#closeClient();
    await watches;
  }

  /** Says goodbye when the connection can, and resolves once it is closed for good. */
  async #closeClient(): Promise<void> {
    const client = this.#client;
    const ended = whenEnded(client);
    try {
      if (client.status === 'ready') await client.quit();
      else client.disconnect();
    } catch {
      // A dying connection cannot say goodbye.
      client.disconnect();
    }
    await ended;
  }

  async #run<T>(command: () => Promise<T>): Promise<T> {
    try {
      const answer = command();
      return await (this.#deadlines?.bound(answer) ?? answer);
    } catch (error) {
      throw toLedgerError(error, this.#target, this.#connectionError);
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

  #factTtl(): string {
    return String(
      Math.ceil(Math.max(minimumFactTtlMs, this.#timings.retentionMs * factTtlRetentions)),
    );
  }

  #factChannel(runId: string): string {
    return this.#key(`facts:${runId}`);
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
 * commands forever: one retry per command, a short connect timeout; each command is
 * bounded by the ledger's `CommandDeadlines` (one timer, not ioredis' one per command).
 */
function createOwnedClient(url: string, onError: (error: Error) => void): Redis {
  const client = new Redis(url, {
    lazyConnect: true,
    maxRetriesPerRequest: 1,
    connectTimeout: 5_000,
    retryStrategy: (times) => Math.min(times * 100, 1_000),
  });
  // Connection errors surface on each command as LedgerUnavailableError (with the last of
  // them); without a listener ioredis would also print every reconnect failure.
  client.on('error', onError);
  return client;
}
