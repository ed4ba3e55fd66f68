-- Records one exchange atomically (AppendExchange).
-- KEYS: messages, meta, summary, exchanges, index, folds, turns, the tenant's users
--       by last exchange, the tenant's user ids
-- ARGV: exchange id, user message JSON, assistant message JSON, at (text), at (µs),
--       flow name, max history, message TTL (ms), summary TTL (ms), fold at,
--       index member, fold queue member, turn JSON for the relay ('' for none),
--       user id, users TTL (ms), users cutoff (µs: a user last active before it
--       has nothing left)
-- Returns {duplicate, created_at, last_active_at, flow_name, message_count, held, queued}.
-- With a turn JSON the new exchange is also added to the turns stream, in the same
-- atomic step, for the relay into the extraction channel.
local messages, meta, summary, exchanges, index, folds, turns = KEYS[1], KEYS[2], KEYS[3], KEYS[4], KEYS[5], KEYS[6], KEYS[7]
local users, user_ids = KEYS[8], KEYS[9]
local xid, at, at_us, flow_name = ARGV[1], ARGV[4], ARGV[5], ARGV[6]
local max_history, message_ttl, summary_ttl, fold_at = tonumber(ARGV[7]), ARGV[8], ARGV[9], tonumber(ARGV[10])

local function result(duplicate)
  local m = redis.call('HMGET', meta, 'created_at', 'last_active_at', 'flow_name', 'message_count')
  local held = redis.call('LLEN', messages)
  local queued = 0
  if redis.call('ZSCORE', folds, ARGV[12]) then queued = 1 end
  return {duplicate, m[1], m[2], m[3] or '', tonumber(m[4]) or 0, held, queued}
end

if redis.call('EXISTS', meta) == 0 then
  -- A new session, or one whose meta expired: it starts again (the summary stays).
  redis.call('DEL', messages, exchanges)
  redis.call('HSET', meta, 'created_at', at, 'message_count', 0, 'rev', 0, 'flow_name', '')
elseif redis.call('ZSCORE', exchanges, xid) then
  return result(1)
end

local count = redis.call('HINCRBY', meta, 'message_count', 2)
redis.call('RPUSH', messages, ARGV[2], ARGV[3])
redis.call('LTRIM', messages, -max_history, -1)
redis.call('ZADD', exchanges, count, xid)
redis.call('ZREMRANGEBYRANK', exchanges, 0, -65)
redis.call('HSET', meta, 'last_active_at', at)
if flow_name ~= '' then redis.call('HSET', meta, 'flow_name', flow_name) end
redis.call('HINCRBY', meta, 'rev', 1)
redis.call('PEXPIRE', messages, message_ttl)
redis.call('PEXPIRE', meta, message_ttl)
redis.call('PEXPIRE', exchanges, message_ttl)
redis.call('PEXPIRE', summary, summary_ttl)
redis.call('ZADD', index, at_us, ARGV[11])
-- Index entries older than the summary TTL point at nothing any more.
redis.call('ZREMRANGEBYSCORE', index, '-inf', '(' .. (tonumber(at_us) - tonumber(summary_ttl) * 1000))
redis.call('PEXPIRE', index, summary_ttl)
-- The tenant's users for GET /v1/users; those whose last exchange is older than
-- the users TTL are trimmed, at most 100 per append.
redis.call('ZADD', users, 'GT', at_us, ARGV[14])
redis.call('ZADD', user_ids, 0, ARGV[14])
local stale = redis.call('ZRANGEBYSCORE', users, '-inf', '(' .. ARGV[16], 'LIMIT', 0, 100)
if #stale > 0 then
  redis.call('ZREM', users, unpack(stale))
  redis.call('ZREM', user_ids, unpack(stale))
end
redis.call('PEXPIRE', users, ARGV[15])
redis.call('PEXPIRE', user_ids, ARGV[15])
if fold_at > 0 and redis.call('LLEN', messages) >= fold_at then
  redis.call('ZADD', folds, 'NX', at_us, ARGV[12])
end
if ARGV[13] ~= '' then
  redis.call('XADD', turns, '*', 'turn', ARGV[13])
end
return result(0)
