-- Counts one user's live sessions (UsersAfter, Activity): the members of the
-- user's index whose meta still exists.
-- KEYS: the user's session index
-- ARGV: the start of the user's session keys ("<p>:<tenant>:<user>:")
-- Returns {live sessions, the latest last_active_at of them ('' for none)}; the
-- times are fixed-width UTC text, so the greatest string is the latest time.
local n, latest = 0, ''
for _, m in ipairs(redis.call('ZRANGE', KEYS[1], 0, -1)) do
  local at = redis.call('HGET', ARGV[1] .. m .. ':meta', 'last_active_at')
  if at then
    n = n + 1
    if at > latest then latest = at end
  end
end
return {n, latest}
