package redisstore

import (
	"context"
	"fmt"
	"strconv"
	"strings"

	"engram/domain/memory"
	"engram/domain/session"
	"engram/ports"
)

// ExportSession reads the whole session with its exchange ids and revision.
func (s *Store) ExportSession(ctx context.Context, ref session.Ref) (session.State, error) {
	return s.read(ctx, ref, 0, true)
}

// ReplaceSession runs the replace script: the revision check and the rewrite of
// every key of the session are one atomic step.
func (s *Store) ReplaceSession(ctx context.Context, st session.State, rev int64) error {
	c, err := s.conn()
	if err != nil {
		return err
	}
	ref := st.Meta.Ref
	k := s.keys(ref)
	args, err := s.replaceArgs(k, st, rev)
	if err != nil {
		return err
	}
	res, err := scriptReplace.Exec(ctx, c, []string{k.messages, k.meta, k.summary, k.exchanges, k.index, k.users, k.userIDs}, args).ToString()
	if err != nil {
		return wrapErr("replace session", err)
	}
	if res != "ok" {
		return fmt.Errorf("redisstore: replace %s: the revision is not %d: %w", ref, rev, ports.ErrConflict)
	}
	return nil
}

func (s *Store) replaceArgs(k sessionKeys, st session.State, rev int64) ([]string, error) {
	m := st.Meta
	live, active := "0", st.Summary.UpdatedAt
	if m.Live() {
		live, active = "1", m.LastActiveAt
	}
	sum := ""
	if st.Summary.Text != "" {
		var err error
		if sum, err = encodeSummary(st.Summary); err != nil {
			return nil, fmt.Errorf("redisstore: encode summary: %w", err)
		}
	}
	msgs := st.Messages
	if len(msgs) > s.limits.MaxHistory {
		msgs = msgs[len(msgs)-s.limits.MaxHistory:]
	}
	if !m.Live() {
		msgs = nil
	}
	args := []string{strconv.FormatInt(rev, 10), live, formatTime(m.CreatedAt), formatTime(m.LastActiveAt), m.FlowName,
		strconv.FormatInt(m.MessageCount, 10), micros(active), sum, ms(s.limits.MessageTTL), ms(s.limits.SummaryTTL),
		k.indexMember, k.user, ms(s.usersTTL()), strconv.Itoa(len(msgs))}
	for _, msg := range msgs {
		j, err := encodeMessage(msg)
		if err != nil {
			return nil, fmt.Errorf("redisstore: encode message %s: %w", msg.ID, err)
		}
		args = append(args, j)
	}
	ids := st.ExchangeIDs
	if len(ids) > session.MaxExchangeIDs {
		ids = ids[len(ids)-session.MaxExchangeIDs:]
	}
	for i, id := range ids {
		// The newest id gets the message count, as the append script scores them.
		args = append(args, id, strconv.FormatInt(m.MessageCount-int64(2*(len(ids)-1-i)), 10))
	}
	return args, nil
}

// PurgeUser deletes the keys of every session in the user's index, then scans
// the user's key space for anything the index no longer names (an entry trimmed
// while a summary lived on), then the index, the user's entries in the tenant's
// user sets and their turns still queued for the relay, so erasure leaves nothing. Erasure is rare and runs
// in the background: the scan is bounded by the user's own keys.
func (s *Store) PurgeUser(ctx context.Context, scope memory.Scope) (map[string]int64, error) {
	c, err := s.conn()
	if err != nil {
		return nil, err
	}
	members, err := c.Do(ctx, c.B().Zrange().Key(s.indexKey(scope)).Min("0").Max("-1").Build()).AsStrSlice()
	if err != nil {
		return nil, wrapErr("read session index", err)
	}
	bases := map[string]bool{}
	base := s.userBase(scope)
	for _, m := range members {
		bases[base+":"+m] = true
	}
	found, err := s.scanUser(ctx, scope)
	if err != nil {
		return nil, err
	}
	for _, key := range found {
		if b, ok := sessionBase(key); ok {
			bases[b] = true
		}
	}
	counts := map[string]int64{"sessions": 0, "session_messages": 0, "summaries": 0}
	for b := range bases {
		if err := s.purgeSession(ctx, b, counts); err != nil {
			return counts, err
		}
	}
	for _, r := range c.DoMulti(ctx,
		c.B().Del().Key(s.indexKey(scope)).Build(),
		c.B().Zrem().Key(s.usersKey(scope.Tenant)).Member(scope.User).Build(),
		c.B().Zrem().Key(s.userIDsKey(scope.Tenant)).Member(scope.User).Build(),
	) {
		if err := r.Error(); err != nil {
			return counts, wrapErr("purge session index", err)
		}
	}
	turns, err := s.purgeTurns(ctx, scope)
	counts["queued_turns"] = turns
	return counts, err
}

// purgeTurns deletes the user's entries of the turns stream, which holds only the
// turns still on their way to the extraction channel: a turn the relay has not
// written yet would otherwise bring the user's messages back after the erasure.
func (s *Store) purgeTurns(ctx context.Context, scope memory.Scope) (int64, error) {
	c, err := s.conn()
	if err != nil {
		return 0, err
	}
	var removed int64
	start := "-"
	for {
		entries, err := c.Do(ctx, c.B().Xrange().Key(s.turnsKey()).Start(start).End("+").Count(1000).Build()).AsXRange()
		if err != nil {
			return removed, wrapErr("read queued turns", err)
		}
		var ids []string
		for _, t := range turnsFrom(entries) {
			if t.Err == nil && t.Exchange.Ref.Scope == scope {
				ids = append(ids, t.ID)
			}
		}
		if len(ids) > 0 {
			n, err := c.Do(ctx, c.B().Xdel().Key(s.turnsKey()).Id(ids...).Build()).AsInt64()
			if err != nil {
				return removed, wrapErr("purge queued turns", err)
			}
			removed += n
		}
		if len(entries) < 1000 {
			return removed, nil
		}
		start = "(" + entries[len(entries)-1].ID
	}
}

// scanUser lists every key under the user's prefix.
func (s *Store) scanUser(ctx context.Context, scope memory.Scope) ([]string, error) {
	c, err := s.conn()
	if err != nil {
		return nil, err
	}
	pattern := globEscaper.Replace(s.userBase(scope)) + ":*"
	var out []string
	cursor := uint64(0)
	for {
		entry, err := c.Do(ctx, c.B().Scan().Cursor(cursor).Match(pattern).Count(1000).Build()).AsScanEntry()
		if err != nil {
			return nil, wrapErr("scan user keys", err)
		}
		out = append(out, entry.Elements...)
		if cursor = entry.Cursor; cursor == 0 {
			return out, nil
		}
	}
}

// sessionBase is the session part of one of its keys (…:<flow>:<session>).
func sessionBase(key string) (string, bool) {
	for _, suffix := range []string{":messages", ":meta", ":summary", ":exchanges", ":fold"} {
		if b, ok := strings.CutSuffix(key, suffix); ok {
			return b, true
		}
	}
	return "", false
}

// purgeSession deletes one session's keys and its fold queue entry, counting what
// it held.
func (s *Store) purgeSession(ctx context.Context, base string, counts map[string]int64) error {
	c, err := s.conn()
	if err != nil {
		return err
	}
	res := c.DoMulti(ctx,
		c.B().Llen().Key(base+":messages").Build(),
		c.B().Exists().Key(base+":summary").Build(),
		c.B().Del().Key(base+":messages", base+":meta", base+":summary", base+":exchanges", base+":fold").Build(),
		c.B().Zrem().Key(s.foldsKey()).Member(strings.TrimPrefix(base, s.prefix+":")).Build(),
	)
	for _, r := range res {
		if err := r.Error(); err != nil {
			return wrapErr("purge session", err)
		}
	}
	msgs, _ := res[0].AsInt64()
	sums, _ := res[1].AsInt64()
	deleted, _ := res[2].AsInt64()
	counts["session_messages"] += msgs
	counts["summaries"] += sums
	if deleted > 0 {
		counts["sessions"]++
	}
	return nil
}
