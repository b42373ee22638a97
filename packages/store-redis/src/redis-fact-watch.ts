import type { FactWatch } from '@recourse/core/store';
import type { Redis } from 'ioredis';

interface Watcher {
  readonly onChange: () => void;
  closed: boolean;
}

interface Channel {
  readonly name: string;
  readonly watchers: Set<Watcher>;
  /** The server confirmed SUBSCRIBE on the current connection. */
  confirmed: boolean;
}

/**
 * The push half of `RedisLedger.watchFacts`: one subscriber connection per ledger,
 * created on the first watch and shared by all of them, with one Redis channel per
 * watched run (the `addFact` script PUBLISHes on it when a fact is new).
 *
 * Subscriptions are managed here rather than by ioredis's auto-resubscribe, so that a
 * watch is `live` only once the server has confirmed its SUBSCRIBE on the connection that
 * is up now; every loss of the connection makes every watch not live, and each
 * resubscription that succeeds calls its watchers, since facts may have been added
 * while nobody listened. A PING every `heartbeatMs` that is still unanswered at the next
 * one (a silent network failure, which TCP reports only after minutes) counts as a lost
 * connection too.
 */
export class RedisFactWatchHub {
  readonly #createSubscriber: () => Redis;
  readonly #heartbeatMs: number;
  #heartbeat: ReturnType<typeof setInterval> | undefined;
  #pingPending = false;
  readonly #channels = new Map<string, Channel>();
  #subscriber: Redis | undefined;
  #connected = false;
  /** Bumped on every connect and disconnect: a reply from an older connection counts for nothing. */
  #generation = 0;
  #closed = false;

  constructor(createSubscriber: () => Redis, heartbeatMs: number) {
    this.#createSubscriber = createSubscriber;
    this.#heartbeatMs = heartbeatMs;
  }

  watch(channelName: string, onChange: () => void): FactWatch {
    const watcher: Watcher = { onChange, closed: false };
    if (this.#closed) return { live: false, close() {} };
    this.#ensureSubscriber();
    let channel = this.#channels.get(channelName);
    if (!channel) {
      channel = { name: channelName, watchers: new Set(), confirmed: false };
      this.#channels.set(channelName, channel);
      if (this.#connected) this.#subscribe([channel]);
    }
    channel.watchers.add(watcher);
    const joined = channel;
    const hub = this;
    return {
      get live() {
        return !watcher.closed && hub.#connected && joined.confirmed;
      },
      close() {
        hub.#leave(joined, watcher);
      },
    };
  }

  /**
   * Closes the subscriber connection; every watch stops being live at once. Resolves when
   * the connection is closed for good.
   */
  close(): Promise<void> {
    this.#closed = true;
    this.#connected = false;
    for (const channel of this.#channels.values()) {
      for (const watcher of channel.watchers) watcher.closed = true;
    }
    this.#channels.clear();
    if (this.#heartbeat) clearInterval(this.#heartbeat);
    this.#heartbeat = undefined;
    const subscriber = this.#subscriber;
    this.#subscriber = undefined;
    if (!subscriber) return Promise.resolve();
    const ended = whenEnded(subscriber);
    subscriber.disconnect();
    return ended;
  }

  #ensureSubscriber(): void {
    if (this.#subscriber) return;
    const subscriber = this.#createSubscriber();
    this.#subscriber = subscriber;
    subscriber.on('ready', () => {
      if (this.#subscriber !== subscriber) return;
      this.#connected = true;
      this.#generation += 1;
      this.#pingPending = false;
      this.#subscribe([...this.#channels.values()]);
    });
    subscriber.on('close', () => {
      if (this.#subscriber === subscriber) this.#disconnected();
    });
    subscriber.on('message', (name: string) => {
      const channel = this.#channels.get(name);
      if (channel) notify(channel);
    });
    // Connection errors show as watches that are not live; without a listener ioredis
    // would print every failed reconnect.
    subscriber.on('error', () => {});
    // A failed first connect is retried by the client's retry strategy like any other.
    subscriber.connect().catch(() => {});
    this.#heartbeat = setInterval(() => this.#checkConnection(subscriber), this.#heartbeatMs);
    this.#heartbeat.unref?.();
  }

  #checkConnection(subscriber: Redis): void {
    if (this.#subscriber !== subscriber || !this.#connected) return;
    if (this.#pingPending) {
      // Not live from now on; destroying the socket (ending it would wait for a peer that
      // may be gone) makes the client reconnect by its retry strategy.
      this.#disconnected();
      subscriber.stream?.destroy();
      return;
    }
    this.#pingPending = true;
    const generation = this.#generation;
    subscriber.ping().then(
      () => {
        if (generation === this.#generation) this.#pingPending = false;
      },
      () => {},
    );
  }

  #disconnected(): void {
    this.#connected = false;
    this.#generation += 1;
    for (const channel of this.#channels.values()) channel.confirmed = false;
  }

  #subscribe(channels: Channel[]): void {
    const subscriber = this.#subscriber;
    if (!subscriber || channels.length === 0) return;
    const generation = this.#generation;
    subscriber.subscribe(...channels.map((channel) => channel.name)).then(
      () => {
        if (generation !== this.#generation || !this.#connected) return;
        for (const channel of channels) {
          // A channel whose last watch closed meanwhile is not ours to report any more.
          if (this.#channels.get(channel.name) !== channel || channel.confirmed) continue;
          channel.confirmed = true;
          notify(channel);
        }
      },
      () => {
        // Refused or timed out on a connection that looks up: start over on a fresh one,
        // whose 'ready' subscribes every channel again.
        if (generation === this.#generation && this.#connected) subscriber.disconnect(true);
      },
    );
  }

  #leave(channel: Channel, watcher: Watcher): void {
    if (watcher.closed) return;
    watcher.closed = true;
    channel.watchers.delete(watcher);
    if (channel.watchers.size > 0 || this.#channels.get(channel.name) !== channel) return;
    this.#channels.delete(channel.name);
    if (this.#connected) this.#subscriber?.unsubscribe(channel.name).catch(() => {});
  }
}

function notify(channel: Channel): void {
  for (const watcher of [...channel.watchers]) {
    if (watcher.closed) continue;
    try {
      watcher.onChange();
    } catch {
      // A watcher's bug must not stop the others from hearing of the change.
    }
  }
}

/**
 * Resolves once `client`'s connection is closed for good (its `end`), so that nothing of it
 * is left open when a `close()` resolves; after `boundMs` at the latest, so that a client
 * that never says so cannot hang the caller.
 */
export function whenEnded(client: Redis, boundMs = 2_000): Promise<void> {
  if (client.status === 'end') return Promise.resolve();
  return new Promise((resolve) => {
    const done = () => {
      clearTimeout(timer);
      client.off('end', done);
      resolve();
    };
    const timer = setTimeout(done, boundMs);
    timer.unref?.();
    client.once('end', done);
  });
}
