import type { Redis } from 'ioredis';

/**
 * Adds ARGV[1] tokens (negative for a failure) to the bucket at KEYS[1], clamped to
 * [0, ARGV[2]]; a missing bucket starts full. The expiry (ARGV[3] ms) is renewed on
 * every change, so only idle buckets disappear. Returns the new count as text: a Lua
 * number in a reply would be truncated to an integer.
 */
const adjustScript = `
local max = tonumber(ARGV[2])
local tokens = tonumber(redis.call('HGET', KEYS[1], 'tokens')) or max
tokens = tokens + tonumber(ARGV[1])
if tokens < 0 then tokens = 0 end
if tokens > max then tokens = max end
local text = string.format('%.17g', tokens)
redis.call('HSET', KEYS[1], 'tokens', text)
redis.call('PEXPIRE', KEYS[1], ARGV[3])
return text
`;

const commandName = 'recourseRetryBudgetAdjust';

export type AdjustTokens = (
  key: string,
  delta: number,
  maxTokens: number,
  ttlMs: number,
) => Promise<number>;

/** Registers the script on the client once (EVALSHA under a namespaced command name). */
export function defineAdjustTokens(client: Redis): AdjustTokens {
  const commands = client as unknown as Record<
    string,
    ((...args: string[]) => Promise<unknown>) | undefined
  >;
  if (!commands[commandName]) {
    client.defineCommand(commandName, { numberOfKeys: 1, lua: adjustScript });
  }
  const command = commands[commandName];
  if (!command) throw new Error(`ioredis did not define ${commandName}`);
  return async (key, delta, maxTokens, ttlMs) =>
    Number(await command.call(client, key, String(delta), String(maxTokens), String(ttlMs)));
}
