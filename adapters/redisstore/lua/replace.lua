-- Writes a whole session if its revision is still the expected one (ReplaceSession).
-- KEYS: messages, meta, summary, exchanges, index, the tenant's users by last
--       exchange, the tenant's user ids
-- ARGV: expected revision, live meta (1/0), created_at, last_active_at, flow name,
--       message count, last active (µs), summary JSON ('' for none), message TTL (ms),
--       summary TTL (ms), index member, user id, users TTL (ms), number of messages
--       n, n message JSONs, exchange ids with their scores (id, score, …)
-- Returns 'ok' or 'rev'.
local messages, meta, summary, exchanges, index = KEYS[1], KEYS[2], KEYS[3], KEYS[4], KEYS[5]
local current = 0
if redis.call('EXISTS', meta) == 1 then current = tonumber(redis.call('HGET', meta, 'rev')) or 0 end
if current ~= tonumber(ARGV[1]) then return 'rev' end

redis.call('DEL', messages, meta, exchanges)
if ARGV[8] ~= '' then
  redis.call('SET', summary, ARGV[8], 'PX', ARGV[10])
else
  redis.call('DEL', summary)
end
if ARGV[2] == '1' then
  redis.call('HSET', meta, 'created_at', ARGV[3], 'last_active_at', ARGV[4], 'flow_name', ARGV[5],
    'message_count', ARGV[6], 'rev', current + 1)
  local n = tonumber(ARGV[14])
  for i = 15, 14 + n do redis.call('RPUSH', messages, ARGV[i]) end
  for i = 15 + n, #ARGV, 2 do redis.call('ZADD', exchanges, ARGV[i + 1], ARGV[i]) end
  redis.call('PEXPIRE', messages, ARGV[9])
  redis.call('PEXPIRE', meta, ARGV[9])
  redis.call('PEXPIRE', exchanges, ARGV[9])
  redis.call('ZADD', KEYS[6], 'GT', ARGV[7], ARGV[12])
  redis.call('ZADD', KEYS[7], 0, ARGV[12])
  redis.call('PEXPIRE', KEYS[6], ARGV[13])
  redis.call('PEXPIRE', KEYS[7], ARGV[13])
end
redis.call('ZADD', index, ARGV[7], ARGV[11])
redis.call('PEXPIRE', index, ARGV[10])
return 'ok'
