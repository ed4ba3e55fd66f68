-- Reads one session as one snapshot (Session, ExportSession).
-- KEYS: messages, meta, summary, exchanges
-- ARGV: how many of the most recent messages (0: all), with exchange ids (1/0)
-- Returns {messages, meta as a flat list, summary JSON or false, exchange ids,
-- messages held}.
local n = tonumber(ARGV[1])
local start = 0
if n > 0 then start = -n end
local ids = {}
if ARGV[2] == '1' then ids = redis.call('ZRANGE', KEYS[4], 0, -1) end
return {
  redis.call('LRANGE', KEYS[1], start, -1),
  redis.call('HGETALL', KEYS[2]),
  redis.call('GET', KEYS[3]),
  ids,
  redis.call('LLEN', KEYS[1]),
}
