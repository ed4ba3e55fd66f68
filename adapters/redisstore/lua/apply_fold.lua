-- Applies a fold if the claim and the summary version still hold (ApplyFold).
-- KEYS: messages, meta, summary, index, folds, claim
-- ARGV: holder, at (µs), base version, new summary JSON, summary TTL (ms), fold at,
--       fold queue member, ids of the folded messages…
-- Returns 'ok', 'claim' (the claim is not the holder's any more) or 'version'.
local messages, meta, summary, index, folds, claim = KEYS[1], KEYS[2], KEYS[3], KEYS[4], KEYS[5], KEYS[6]
local holder, at_us, base = ARGV[1], tonumber(ARGV[2]), tonumber(ARGV[3])

local c = redis.call('GET', claim)
if not c then return 'claim' end
local h, untl = string.match(c, '^(.*)|(%d+)$')
if h ~= holder or tonumber(untl) <= at_us then return 'claim' end
if redis.call('EXISTS', meta) == 0 then return 'version' end
local version = 0
local current = redis.call('GET', summary)
if current then version = tonumber(cjson.decode(current).version) end
if version ~= base then return 'version' end

local folded = {}
for i = 8, #ARGV do folded[ARGV[i]] = true end
-- The folded messages were the oldest when the fold read them; appends add at
-- the tail and trims remove at the head, so what is left of them is at the head.
while true do
  local head = redis.call('LINDEX', messages, 0)
  if not head or not folded[cjson.decode(head).id] then break end
  redis.call('LPOP', messages)
end
redis.call('SET', summary, ARGV[4], 'PX', ARGV[5])
redis.call('HINCRBY', meta, 'rev', 1)
redis.call('PEXPIRE', index, ARGV[5])
redis.call('DEL', claim)
local fold_at = tonumber(ARGV[6])
if fold_at > 0 and redis.call('LLEN', messages) >= fold_at then
  redis.call('ZADD', folds, at_us, ARGV[7])
else
  redis.call('ZREM', folds, ARGV[7])
end
return 'ok'
