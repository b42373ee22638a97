/**
 * Lua scripts that port the core's record rules (`planClaim`, `planComplete`,
 * `planRelease`, `planMarkUncertain`, `planRenew` in `@recourse/core`'s record-rules) so that each
 * read-decide-write runs atomically inside Redis. Times come from the caller's clock as
 * ARGV, never from the server, so that leases stay fake-clock testable.
 *
 * Record hash fields: state, payloadHash, token, leaseExpiresAt, result (the caller's JSON
 * text, absent when the tool returned nothing), unstorable (why a completed result was not
 * stored), note, inDoubt ('1' when an earlier attempt may have written; absent is '0'),
 * updatedAt.
 */

/**
 * KEYS: record. ARGV: payloadHash, now, leaseExpiresAt, retentionMs, ttlMs, token. The
 * fencing token is the caller's (unique per claim, see `ClaimTokens`): a claim is one
 * read and one write of its own record, with no shared counter to touch.
 */
export const claimScript = `
local now = tonumber(ARGV[2])
local f = redis.call('HMGET', KEYS[1], 'state', 'payloadHash', 'leaseExpiresAt', 'result', 'updatedAt', 'note', 'unstorable')
local state = f[1]
if state then
  local since = tonumber(f[5])
  if state == 'in_flight' and f[3] then since = tonumber(f[3]) end
  if now >= since + tonumber(ARGV[4]) then state = false end
end
local previous = ''
local note = false
if state then
  if f[2] ~= ARGV[1] then return {'conflict'} end
  if state == 'completed' then return {'completed', f[4], f[7]} end
  if state == 'in_flight' and now < tonumber(f[3] or '0') then return {'in_flight', f[3]} end
  if state == 'uncertain' then previous = 'uncertain' else previous = 'expired' end
  note = f[6]
end
local token = ARGV[6]
if f[1] then redis.call('DEL', KEYS[1]) end
redis.call('HSET', KEYS[1], 'state', 'in_flight', 'payloadHash', ARGV[1], 'token', token,
  'leaseExpiresAt', ARGV[3], 'updatedAt', ARGV[2])
-- An absent inDoubt reads as '0' (release, complete): only a doubt is written.
if previous ~= '' then redis.call('HSET', KEYS[1], 'inDoubt', '1') end
if note then redis.call('HSET', KEYS[1], 'note', note) end
redis.call('PEXPIRE', KEYS[1], ARGV[5])
return {'acquired', token, previous}
`;

/**
 * KEYS: record. ARGV: token, hasJson ('1'/'0'), JSON text, hasUnstorable ('1'/'0'), reason,
 * now, ttlMs. 0 when the token lost the key.
 */
export const completeScript = `
local f = redis.call('HMGET', KEYS[1], 'token', 'state')
if f[1] ~= ARGV[1] then return 0 end
if f[2] == 'completed' then return 1 end
redis.call('HDEL', KEYS[1], 'leaseExpiresAt', 'note', 'result', 'unstorable')
redis.call('HSET', KEYS[1], 'state', 'completed', 'updatedAt', ARGV[6], 'inDoubt', '0')
if ARGV[2] == '1' then redis.call('HSET', KEYS[1], 'result', ARGV[3]) end
if ARGV[4] == '1' then redis.call('HSET', KEYS[1], 'unstorable', ARGV[5]) end
redis.call('PEXPIRE', KEYS[1], ARGV[7])
return 1
`;

/**
 * KEYS: record. ARGV: token, now, leaseExpiresAt, retentionMs, ttlMs. Extends the lease of
 * the token's in-flight claim (and the key's expiry with it); 0 when the token lost the
 * key, the record is not in flight, or it is past retention.
 */
export const renewScript = `
local f = redis.call('HMGET', KEYS[1], 'token', 'state', 'leaseExpiresAt', 'updatedAt')
if f[1] ~= ARGV[1] or f[2] ~= 'in_flight' then return 0 end
local since = tonumber(f[3] or f[4])
if tonumber(ARGV[2]) >= since + tonumber(ARGV[4]) then return 0 end
redis.call('HSET', KEYS[1], 'leaseExpiresAt', ARGV[3], 'updatedAt', ARGV[2])
redis.call('PEXPIRE', KEYS[1], ARGV[5])
return 1
`;

/** KEYS: record. ARGV: token, now, ttlMs. An in-doubt key goes back to uncertain. */
export const releaseScript = `
local f = redis.call('HMGET', KEYS[1], 'token', 'state', 'inDoubt')
if f[1] ~= ARGV[1] or f[2] ~= 'in_flight' then return 0 end
if f[3] == '1' then
  redis.call('HSET', KEYS[1], 'state', 'uncertain', 'updatedAt', ARGV[2])
  redis.call('HDEL', KEYS[1], 'leaseExpiresAt', 'result', 'unstorable')
  redis.call('PEXPIRE', KEYS[1], ARGV[3])
else
  redis.call('DEL', KEYS[1])
end
return 1
`;

/** KEYS: record. ARGV: token, now, hasNote ('1'/'0'), note, ttlMs. */
export const markUncertainScript = `
local f = redis.call('HMGET', KEYS[1], 'token', 'state')
if f[1] ~= ARGV[1] or not f[2] or f[2] == 'completed' then return 0 end
redis.call('HSET', KEYS[1], 'state', 'uncertain', 'updatedAt', ARGV[2], 'inDoubt', '1')
redis.call('HDEL', KEYS[1], 'leaseExpiresAt', 'result', 'unstorable')
if ARGV[3] == '1' then redis.call('HSET', KEYS[1], 'note', ARGV[4]) end
redis.call('PEXPIRE', KEYS[1], ARGV[5])
return 1
`;

/** KEYS: repairs hash. ARGV: fingerprint, ttlMs. Returns the new count. */
export const addRepairScript = `
local count = redis.call('HINCRBY', KEYS[1], ARGV[1], 1)
redis.call('PEXPIRE', KEYS[1], ARGV[2])
return count
`;

/**
 * KEYS: seen hash, fact log (a list, oldest first). ARGV: kind + NUL + id, log entry,
 * ttlMs, channel. The first record of (kind, id) stays; a new fact is announced on the
 * run's channel by the same script, so no watcher misses a fact that was stored.
 * Returns 1 when the fact is new.
 */
export const addFactScript = `
if redis.call('HSETNX', KEYS[1], ARGV[1], '1') == 0 then return 0 end
redis.call('RPUSH', KEYS[2], ARGV[2])
redis.call('PEXPIRE', KEYS[1], ARGV[3])
redis.call('PEXPIRE', KEYS[2], ARGV[3])
redis.call('PUBLISH', ARGV[4], '1')
return 1
`;
