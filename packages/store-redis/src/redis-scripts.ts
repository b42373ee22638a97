/**
 * Lua scripts that port the core's record rules (`planClaim`, `planComplete`,
 * `planRelease`, `planMarkUncertain`, `planRenew` in `@recourse/core`'s record-rules) so that each
 * read-decide-write runs atomically inside Redis. Times come from the caller's clock as
 * ARGV, never from the server, so that leases stay fake-clock testable.
 *
 * A record is one string value, a JSON object (see `redis-codec.ts`), so that a claim of a
 * free key can be a plain `SET … NX PX … GET` from the client with no script; these scripts
 * decode it with `cjson`. Every number in it is a string: `cjson.encode` prints numbers
 * with 14 significant digits, which would round a timestamp with more.
 *
 * Records written by earlier versions are hashes with the same field names. `loadRecord`
 * reads both, so a claim or a write of this version decides on an older process's record
 * exactly as that process would (a rolling deploy); a write replaces the hash with a
 * string.
 */

/**
 * The record at KEYS[1] as a table of its fields (strings), or nil when there is none.
 * GET answers WRONGTYPE (as a value, through pcall) on an older version's hash; any other
 * type is not ours, and HMGET raises WRONGTYPE on it as before.
 */
const loadRecord = `
local recordFields = {'state', 'payloadHash', 'token', 'leaseExpiresAt', 'result', 'unstorable',
  'note', 'inDoubt', 'updatedAt'}
local function loadRecord(key)
  local text = redis.pcall('GET', key)
  if not text then return nil end
  if type(text) == 'string' then return cjson.decode(text) end
  local values = redis.call('HMGET', key, unpack(recordFields))
  if not values[1] then return nil end
  local record = {}
  for i, name in ipairs(recordFields) do
    if values[i] then record[name] = values[i] end
  end
  return record
end
`;

/**
 * KEYS: record. ARGV: payloadHash, now, leaseExpiresAt, retentionMs, ttlMs, token. The
 * fencing token is the caller's (unique per claim, see `ClaimTokens`): a claim is one
 * read and one write of its own record, with no shared counter to touch. The client runs
 * it only when its `SET … NX GET` found a record (or the server refuses that form), so it
 * also takes a free key.
 */
export const claimScript = `${loadRecord}
local now = tonumber(ARGV[2])
local current = loadRecord(KEYS[1])
if current then
  local since = tonumber(current.updatedAt)
  if current.state == 'in_flight' and current.leaseExpiresAt then
    since = tonumber(current.leaseExpiresAt)
  end
  if now >= since + tonumber(ARGV[4]) then current = nil end
end
local record = {state = 'in_flight', payloadHash = ARGV[1], token = ARGV[6],
  leaseExpiresAt = ARGV[3], updatedAt = ARGV[2]}
local previous = ''
if current then
  if current.payloadHash ~= ARGV[1] then return {'conflict'} end
  if current.state == 'completed' then
    return {'completed', current.result or false, current.unstorable or false}
  end
  if current.state == 'in_flight' and now < tonumber(current.leaseExpiresAt or '0') then
    return {'in_flight', current.leaseExpiresAt}
  end
  if current.state == 'uncertain' then previous = 'uncertain' else previous = 'expired' end
  -- Only a doubt is written: an absent inDoubt reads as '0' (release, complete).
  record.inDoubt = '1'
  record.note = current.note
end
redis.call('SET', KEYS[1], cjson.encode(record), 'PX', ARGV[5])
return {'acquired', ARGV[6], previous}
`;

/**
 * KEYS: record. ARGV: token, hasJson ('1'/'0'), JSON text, hasUnstorable ('1'/'0'), reason,
 * now, ttlMs. 0 when the token lost the key.
 */
export const completeScript = `${loadRecord}
local record = loadRecord(KEYS[1])
if not record or record.token ~= ARGV[1] then return 0 end
if record.state == 'completed' then return 1 end
local completed = {state = 'completed', payloadHash = record.payloadHash, token = record.token,
  updatedAt = ARGV[6], inDoubt = '0'}
if ARGV[2] == '1' then completed.result = ARGV[3] end
if ARGV[4] == '1' then completed.unstorable = ARGV[5] end
redis.call('SET', KEYS[1], cjson.encode(completed), 'PX', ARGV[7])
return 1
`;

/**
 * KEYS: record. ARGV: token, now, leaseExpiresAt, retentionMs, ttlMs. Extends the lease of
 * the token's in-flight claim (and the key's expiry with it); 0 when the token lost the
 * key, the record is not in flight, or it is past retention.
 */
export const renewScript = `${loadRecord}
local record = loadRecord(KEYS[1])
if not record or record.token ~= ARGV[1] or record.state ~= 'in_flight' then return 0 end
local since = tonumber(record.leaseExpiresAt or record.updatedAt)
if tonumber(ARGV[2]) >= since + tonumber(ARGV[4]) then return 0 end
record.leaseExpiresAt = ARGV[3]
record.updatedAt = ARGV[2]
redis.call('SET', KEYS[1], cjson.encode(record), 'PX', ARGV[5])
return 1
`;

/** KEYS: record. ARGV: token, now, ttlMs. An in-doubt key goes back to uncertain. */
export const releaseScript = `${loadRecord}
local record = loadRecord(KEYS[1])
if not record or record.token ~= ARGV[1] or record.state ~= 'in_flight' then return 0 end
if record.inDoubt == '1' then
  record.state = 'uncertain'
  record.updatedAt = ARGV[2]
  record.leaseExpiresAt = nil
  record.result = nil
  record.unstorable = nil
  redis.call('SET', KEYS[1], cjson.encode(record), 'PX', ARGV[3])
else
  redis.call('DEL', KEYS[1])
end
return 1
`;

/** KEYS: record. ARGV: token, now, hasNote ('1'/'0'), note, ttlMs. */
export const markUncertainScript = `${loadRecord}
local record = loadRecord(KEYS[1])
if not record or record.token ~= ARGV[1] or record.state == 'completed' then return 0 end
record.state = 'uncertain'
record.updatedAt = ARGV[2]
record.inDoubt = '1'
record.leaseExpiresAt = nil
record.result = nil
record.unstorable = nil
if ARGV[3] == '1' then record.note = ARGV[4] end
redis.call('SET', KEYS[1], cjson.encode(record), 'PX', ARGV[5])
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
