import { InvalidOptionsError, type LedgerOptions } from '@recourse/core/store';
import type { Redis } from 'ioredis';

export type RedisLedgerOptions = LedgerOptions & {
  /** Prefix of every key the ledger writes. Default `recourse:`. */
  keyPrefix?: string | undefined;
  /**
   * How often a fact watch PINGs its subscriber connection; a PING still unanswered at
   * the next one makes the watches not live and reconnects. Default 5 s.
   */
  watchHeartbeatMs?: number | undefined;
} & (
    | {
        /** `redis://` or `rediss://` URL; the ledger creates, and `close()` quits, its client. */
        url: string;
        client?: undefined;
      }
    | {
        /** A client you own: the ledger never quits it. Its retry options decide how fast a
         * dead server is reported. */
        client: Redis;
        url?: undefined;
      }
  );

export const defaultKeyPrefix = 'recourse:';

/** Checks the store-specific options; `leaseMs`/`retentionMs` are checked apart. */
export function validateRedisTarget(options: RedisLedgerOptions): void {
  if (options.keyPrefix !== undefined && typeof options.keyPrefix !== 'string') {
    throw new InvalidOptionsError('keyPrefix', 'must be a string');
  }
  const heartbeat = options.watchHeartbeatMs;
  if (
    heartbeat !== undefined &&
    !(typeof heartbeat === 'number' && heartbeat > 0 && Number.isFinite(heartbeat))
  ) {
    throw new InvalidOptionsError(
      'watchHeartbeatMs',
      `must be a positive number of milliseconds, got ${heartbeat}`,
    );
  }
  if (options.client !== undefined) {
    if (options.url !== undefined) {
      throw new InvalidOptionsError('url', 'give either `url` or `client`, not both');
    }
    if (typeof options.client !== 'object' || options.client === null) {
      throw new InvalidOptionsError('client', 'must be an ioredis client');
    }
    return;
  }
  if (typeof options.url !== 'string' || !isRedisUrl(options.url)) {
    throw new InvalidOptionsError('url', 'must be a redis:// or rediss:// URL');
  }
}

function isRedisUrl(url: string): boolean {
  if (!URL.canParse(url)) return false;
  const parsed = new URL(url);
  return (parsed.protocol === 'redis:' || parsed.protocol === 'rediss:') && parsed.hostname !== '';
}
