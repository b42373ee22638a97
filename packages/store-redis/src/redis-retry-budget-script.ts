import type { Redis } from 'ioredis';

/**
 * The retry budget's circuit for one dependency, in the hash at KEYS[1]: `tokens` (a
 * missing bucket starts full), `inrow` (transient failures in a row) and, while open,
 * `probe_at` (when the next probe may go). The same rules as the core's in-process
 * budget, applied atomically for every process sharing the hash:
 *
 * - `fail`: a token less, one more in a row (`fail-retry`: a retry's failure, a token less
 *   only); open when half the bucket is gone or `tripAfter` came in a row
 * - `ok`: none in a row; an open circuit closes and refills, a closed one gains `ratio`
 * - `can`: closed → 1; open and the probe is due → 1, and the next probe moves on; else 0
 * - `wait`: ms until the next probe, or -1 when closed
 *
 * ARGV: op, now, maxTokens, tokenRatio, tripAfter, probeIntervalMs, ttlMs. The expiry is
 * renewed on every change, so only idle buckets disappear. Numbers are returned as text:
 * a Lua number in a reply would be truncated to an integer.
 */
const circuitScript = `
local op = ARGV[1]
local now = tonumber(ARGV[2])
local max = tonumber(ARGV[3])
local ratio = tonumber(ARGV[4])
local trip = tonumber(ARGV[5])
local interval = tonumber(ARGV[6])
local tokens = tonumber(redis.call('HGET', KEYS[1], 'tokens')) or max
local inrow = tonumber(redis.call('HGET', KEYS[1], 'inrow')) or 0
local probe = tonumber(redis.call('HGET', KEYS[1], 'probe_at'))
local function save()
  redis.call('HSET', KEYS[1], 'tokens', string.format('%.17g', tokens), 'inrow', inrow)
  if probe then redis.call('HSET', KEYS[1], 'probe_at', probe) else redis.call('HDEL', KEYS[1], 'probe_at') end
  redis.call('PEXPIRE', KEYS[1], ARGV[7])
end
if op == 'fail' or op == 'fail-retry' then
  tokens = math.max(0, tokens - 1)
  if op == 'fail' then inrow = inrow + 1 end
  if not probe and (tokens <= max / 2 or inrow >= trip) then probe = now + interval end
  save()
  return string.format('%.17g', tokens)
elseif op == 'ok' then
  inrow = 0
  if probe then probe = nil; tokens = max else tokens = math.min(max, tokens + ratio) end
  save()
  return string.format('%.17g', tokens)
elseif op == 'can' then
  if not probe then return '1' end
  if now < probe then return '0' end
  probe = now + interval
  save()
  return '1'
elseif op == 'wait' then
  if not probe then return '-1' end
  return tostring(math.max(0, probe - now))
end
return string.format('%.17g', tokens)
`;

const commandName = 'recourseRetryBudgetCircuit';

export type CircuitOp = 'fail' | 'fail-retry' | 'ok' | 'can' | 'wait' | 'tokens';

export interface CircuitSettings {
  maxTokens: number;
  tokenRatio: number;
  tripAfter: number;
  probeIntervalMs: number;
  ttlMs: number;
}

export type RunCircuit = (key: string, op: CircuitOp, now: number) => Promise<number>;

/** Registers the script on the client once (EVALSHA under a namespaced command name). */
export function defineCircuit(client: Redis, settings: CircuitSettings): RunCircuit {
  const commands = client as unknown as Record<
    string,
    ((...args: string[]) => Promise<unknown>) | undefined
  >;
  if (!commands[commandName]) {
    client.defineCommand(commandName, { numberOfKeys: 1, lua: circuitScript });
  }
  const command = commands[commandName];
  if (!command) throw new Error(`ioredis did not define ${commandName}`);
  const { maxTokens, tokenRatio, tripAfter, probeIntervalMs, ttlMs } = settings;
  return async (key, op, now) =>
    Number(
      await command.call(
        client,
        key,
        op,
        String(now),
        String(maxTokens),
        String(tokenRatio),
        String(tripAfter),
        String(probeIntervalMs),
        String(ttlMs),
      ),
    );
}
