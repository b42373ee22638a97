import type { FactWatch } from '@recourse/core/store';
import type { Notification, PoolClient } from 'pg';

interface Watcher {
  readonly onChange: () => void;
  closed: boolean;
}

export interface PostgresFactWatchOptions {
  /** A pool client to hold for LISTEN (released, destroyed, when it fails or no one watches). */
  connect: () => Promise<PoolClient>;
  /** The channel `addFact` notifies, a validated identifier. */
  channel: string;
  /** How often the listening connection is checked; a check unanswered by the next one drops it. */
  heartbeatMs: number;
}

// Reconnect pacing after failures: 50 ms, doubling, at most 5 s.
const firstRetryMs = 50;
const maxRetryMs = 5_000;

/**
 * The push half of `PostgresLedger.watchFacts`: one pooled connection held for `LISTEN`
 * while any watch of the ledger is open, on one channel per table; `addFact` notifies it
 * with the run id in the statement that inserts the fact. Notifications are dispatched
 * to the watchers of that run.
 *
 * A watch is `live` only while the LISTEN is confirmed on a connection that is up. When
 * the connection errors, ends, or leaves a heartbeat unanswered (a silent network
 * failure that TCP would report only after minutes), every watch stops being live and
 * the hub reconnects with backoff; each successful LISTEN calls every watcher, since
 * facts may have been added while nobody listened.
 */
export class PostgresFactWatchHub {
  readonly #options: PostgresFactWatchOptions;
  readonly #runs = new Map<string, Set<Watcher>>();
  #client: PoolClient | undefined;
  #connecting = false;
  #live = false;
  #failures = 0;
  #retryTimer: ReturnType<typeof setTimeout> | undefined;
  #heartbeatTimer: ReturnType<typeof setInterval> | undefined;
  #heartbeatPending = false;
  #closed = false;

  constructor(options: PostgresFactWatchOptions) {
    this.#options = options;
  }

  watch(runId: string, onChange: () => void): FactWatch {
    const watcher: Watcher = { onChange, closed: false };
    if (this.#closed) return { live: false, close() {} };
    let watchers = this.#runs.get(runId);
    if (!watchers) {
      watchers = new Set();
      this.#runs.set(runId, watchers);
    }
    watchers.add(watcher);
    if (!this.#client && !this.#connecting && !this.#retryTimer) void this.#connect();
    const hub = this;
    return {
      get live() {
        return !watcher.closed && hub.#live;
      },
      close() {
        hub.#leave(runId, watcher);
      },
    };
  }

  /** Releases the listening connection; every watch stops being live. */
  close(): void {
    this.#closed = true;
    for (const watchers of this.#runs.values()) {
      for (const watcher of watchers) watcher.closed = true;
    }
    this.#runs.clear();
    this.#stop();
  }

  async #connect(): Promise<void> {
    this.#connecting = true;
    let client: PoolClient | undefined;
    try {
      client = await this.#options.connect();
      const held = client;
      // Unhandled, an 'error' on a connection nobody queries would crash the process.
      held.on('error', (error: Error) => this.#lose(held, error));
      held.on('end', () => this.#lose(held, new Error('connection ended')));
      held.on('notification', (message: Notification) => this.#dispatch(message));
      await held.query(`LISTEN "${this.#options.channel}"`);
    } catch (error) {
      this.#connecting = false;
      if (client) destroy(client, error);
      this.#failures += 1;
      this.#scheduleRetry();
      return;
    }
    this.#connecting = false;
    if (this.#closed || this.#runs.size === 0) {
      destroy(client, undefined);
      return;
    }
    this.#client = client;
    this.#failures = 0;
    this.#live = true;
    this.#startHeartbeat(client);
    for (const watchers of this.#runs.values()) notify(watchers);
  }

  #dispatch(message: Notification): void {
    if (message.channel !== this.#options.channel) return;
    // An empty payload (a run id too long for NOTIFY) means "some run": tell everyone.
    if (!message.payload) {
      for (const watchers of this.#runs.values()) notify(watchers);
      return;
    }
    const watchers = this.#runs.get(message.payload);
    if (watchers) notify(watchers);
  }

  #startHeartbeat(client: PoolClient): void {
    this.#heartbeatPending = false;
    this.#heartbeatTimer = setInterval(() => {
      if (this.#client !== client) return;
      if (this.#heartbeatPending) {
        this.#lose(client, new Error('heartbeat unanswered'));
        return;
      }
      this.#heartbeatPending = true;
      client.query('SELECT 1').then(
        () => {
          if (this.#client === client) this.#heartbeatPending = false;
        },
        (error: unknown) => this.#lose(client, error),
      );
    }, this.#options.heartbeatMs);
    this.#heartbeatTimer.unref?.();
  }

  /** The listening connection failed: not live until a new LISTEN succeeds. */
  #lose(client: PoolClient, error: unknown): void {
    if (this.#client !== client) return;
    this.#stop(error);
    if (!this.#closed && this.#runs.size > 0) this.#scheduleRetry();
  }

  #scheduleRetry(): void {
    if (this.#closed || this.#runs.size === 0 || this.#retryTimer) return;
    const delay = Math.min(firstRetryMs * 2 ** Math.max(0, this.#failures - 1), maxRetryMs);
    this.#retryTimer = setTimeout(() => {
      this.#retryTimer = undefined;
      if (!this.#client && !this.#connecting) void this.#connect();
    }, delay);
    this.#retryTimer.unref?.();
  }

  #stop(error?: unknown): void {
    this.#live = false;
    if (this.#heartbeatTimer) clearInterval(this.#heartbeatTimer);
    this.#heartbeatTimer = undefined;
    if (this.#retryTimer) clearTimeout(this.#retryTimer);
    this.#retryTimer = undefined;
    const client = this.#client;
    this.#client = undefined;
    if (client) destroy(client, error);
  }

  #leave(runId: string, watcher: Watcher): void {
    if (watcher.closed) return;
    watcher.closed = true;
    const watchers = this.#runs.get(runId);
    watchers?.delete(watcher);
    if (watchers?.size === 0) this.#runs.delete(runId);
    // Nobody watches: give the connection back rather than hold a pool slot for nothing.
    if (this.#runs.size === 0) this.#stop();
  }
}

/**
 * Destroys the connection instead of returning it to the pool, where it would keep
 * listening. Its socket is destroyed first: ending a connection politely waits for a
 * server that may never answer.
 */
function destroy(client: PoolClient, error: unknown): void {
  const socket = (client as { connection?: { stream?: { destroy?: () => void } } }).connection
    ?.stream;
  socket?.destroy?.();
  try {
    client.release(error instanceof Error ? error : true);
  } catch {
    // Released already (the pool removed it after its error).
  }
}

function notify(watchers: Set<Watcher>): void {
  for (const watcher of [...watchers]) {
    if (watcher.closed) continue;
    try {
      watcher.onChange();
    } catch {
      // A watcher's bug must not stop the others from hearing of the change.
    }
  }
}
