-- Claims queued sessions whose fold is due (ClaimFolds).
-- KEYS: folds
-- ARGV: now (µs), claim until (µs), holder, limit, key prefix, claim key TTL (ms)
-- Returns the claimed queue members. The claim of member m is the key
-- <prefix>:<m>:fold holding "holder|until"; it is built here from the member
-- (a single Redis server, not a cluster).
local now, untl, holder, limit, prefix, ttl = tonumber(ARGV[1]), ARGV[2], ARGV[3], tonumber(ARGV[4]), ARGV[5], ARGV[6]
local out = {}
local due = redis.call('ZRANGEBYSCORE', KEYS[1], '-inf', now, 'LIMIT', 0, 1000)
for _, m in ipairs(due) do
  if #out >= limit then break end
  local key = prefix .. ':' .. m .. ':fold'
  local c = redis.call('GET', key)
  local free = true
  if c then
    local u = string.match(c, '|(%d+)$')
    free = u == nil or tonumber(u) <= now
  end
  if free then
    redis.call('SET', key, holder .. '|' .. untl, 'PX', ttl)
    out[#out + 1] = m
  end
end
return out
