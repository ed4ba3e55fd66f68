-- Deletes one session (DeleteSession).
-- KEYS: messages, meta, summary, exchanges, claim, index, folds
-- ARGV: index member, fold queue member
-- Returns how many of the session's data keys existed.
local n = redis.call('DEL', KEYS[1], KEYS[2], KEYS[3], KEYS[4])
redis.call('DEL', KEYS[5])
redis.call('ZREM', KEYS[6], ARGV[1])
redis.call('ZREM', KEYS[7], ARGV[2])
return n
