-- Gives a claim back (ReleaseFold).
-- KEYS: claim, folds
-- ARGV: holder, retry at (µs; 0 leaves the queue), fold queue member
local c = redis.call('GET', KEYS[1])
if not c then return 0 end
local h = string.match(c, '^(.*)|%d+$')
if h ~= ARGV[1] then return 0 end
redis.call('DEL', KEYS[1])
if ARGV[2] == '0' then
  redis.call('ZREM', KEYS[2], ARGV[3])
else
  redis.call('ZADD', KEYS[2], ARGV[2], ARGV[3])
end
return 1
