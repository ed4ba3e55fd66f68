package redisstore

import (
	"context"
	"fmt"
	"slices"
	"strconv"
	"time"

	"github.com/redis/rueidis"

	"engram/domain/memory"
	"engram/domain/session"
	"engram/ports"
)

// AppendExchange runs the append script: messages, meta, exchange id, index and
// fold queue in one atomic step.
func (s *Store) AppendExchange(ctx context.Context, a ports.SessionAppend) (ports.SessionAppended, error) {
	c, err := s.conn()
	if err != nil {
		return ports.SessionAppended{}, err
	}
	x := a.Exchange
	k := s.keys(x.Ref)
	msgs := x.Messages()
	user, err1 := encodeMessage(msgs[0])
	assistant, err2 := encodeMessage(msgs[1])
	if err1 != nil || err2 != nil {
		return ports.SessionAppended{}, fmt.Errorf("redisstore: encode exchange %s: %v %v", x.ID, err1, err2)
	}
	turn := ""
	if s.opts.RelayTurns {
		if turn, err = encodeTurn(x); err != nil {
			return ports.SessionAppended{}, fmt.Errorf("redisstore: encode turn %s: %w", x.ID, err)
		}
	}
	res, err := scriptAppend.Exec(ctx, c,
		[]string{k.messages, k.meta, k.summary, k.exchanges, k.index, k.folds, s.turnsKey(), k.users, k.userIDs},
		[]string{x.ID, user, assistant, formatTime(x.At), micros(x.At), x.FlowName,
			strconv.Itoa(s.limits.MaxHistory), ms(s.limits.MessageTTL), ms(s.limits.SummaryTTL), strconv.Itoa(a.FoldAt),
			k.indexMember, k.foldMember, turn, k.user, ms(s.usersTTL()), micros(x.At.Add(-s.usersTTL()))}).ToArray()
	if err != nil {
		return ports.SessionAppended{}, wrapErr("append exchange", err)
	}
	out, err := appendedFrom(x.Ref, res)
	out.Relayed = err == nil && turn != "" && !out.Duplicate
	return out, err
}

// appendedFrom reads {duplicate, created_at, last_active_at, flow_name,
// message_count, held, queued}.
func appendedFrom(ref session.Ref, res []rueidis.RedisMessage) (ports.SessionAppended, error) {
	if len(res) != 7 {
		return ports.SessionAppended{}, fmt.Errorf("redisstore: append exchange: %d values from the script", len(res))
	}
	nums := make([]int64, 0, 4)
	for _, i := range []int{0, 4, 5, 6} {
		n, err := res[i].AsInt64()
		if err != nil {
			return ports.SessionAppended{}, fmt.Errorf("redisstore: append exchange: value %d: %w", i, err)
		}
		nums = append(nums, n)
	}
	strs := make([]string, 3)
	for i := range strs {
		if !res[i+1].IsNil() {
			strs[i], _ = res[i+1].ToString()
		}
	}
	meta, _, err := metaFromMap(ref, map[string]string{"created_at": strs[0], "last_active_at": strs[1], "flow_name": strs[2],
		"message_count": strconv.FormatInt(nums[1], 10)}, int(nums[2]))
	if err != nil {
		return ports.SessionAppended{}, err
	}
	return ports.SessionAppended{Meta: meta, Duplicate: nums[0] == 1, FoldQueued: nums[3] == 1}, nil
}

// Session reads the session with the read-only script (one round trip, one
// snapshot). Client-side caching is not used here: the meta changes with every
// exchange and the read usually follows a write, so the cache would miss, and
// Redis delivers the invalidation after the write's reply, so a hit could even be
// stale.
func (s *Store) Session(ctx context.Context, ref session.Ref, limit int) (session.View, error) {
	st, err := s.read(ctx, ref, limit, false)
	return st.View, err
}

// read runs the read script; withIDs also returns the exchange ids.
func (s *Store) read(ctx context.Context, ref session.Ref, limit int, withIDs bool) (session.State, error) {
	c, err := s.conn()
	if err != nil {
		return session.State{}, err
	}
	k := s.keys(ref)
	ids := "0"
	if withIDs {
		ids = "1"
	}
	res, err := scriptRead.Exec(ctx, c, []string{k.messages, k.meta, k.summary, k.exchanges},
		[]string{strconv.Itoa(max(limit, 0)), ids}).ToArray()
	if err != nil {
		return session.State{}, wrapErr("read session", err)
	}
	st, err := stateFrom(ref, res)
	if err != nil {
		return session.State{}, err
	}
	if !st.Exists() {
		return session.State{}, fmt.Errorf("redisstore: %s: %w", ref, ports.ErrNotFound)
	}
	return st, nil
}

// stateFrom reads {messages, meta, summary, exchange ids, messages held}.
func stateFrom(ref session.Ref, res []rueidis.RedisMessage) (session.State, error) {
	if len(res) != 5 {
		return session.State{}, fmt.Errorf("redisstore: read session: %d values from the script", len(res))
	}
	raw, err1 := res[0].AsStrSlice()
	fields, err2 := res[1].AsStrSlice()
	ids, err3 := res[3].AsStrSlice()
	held, err4 := res[4].AsInt64()
	if err := firstErr(err1, err2, err3, err4); err != nil {
		return session.State{}, fmt.Errorf("redisstore: read session: %w", err)
	}
	var st session.State
	if len(fields) > 0 {
		f := make(map[string]string, len(fields)/2)
		for i := 0; i+1 < len(fields); i += 2 {
			f[fields[i]] = fields[i+1]
		}
		meta, rev, err := metaFromMap(ref, f, int(held))
		if err != nil {
			return session.State{}, err
		}
		st.Meta, st.Rev = meta, rev
		first := meta.MessageCount - int64(len(raw)) + 1
		for i, r := range raw {
			m, err := decodeMessage(r, first+int64(i))
			if err != nil {
				return session.State{}, err
			}
			st.Messages = append(st.Messages, m)
		}
		st.ExchangeIDs = ids
	}
	if !res[2].IsNil() {
		text, err := res[2].ToString()
		if err != nil {
			return session.State{}, fmt.Errorf("redisstore: read summary: %w", err)
		}
		if st.Summary, err = decodeSummary(text); err != nil {
			return session.State{}, err
		}
	}
	return st, nil
}

// Sessions lists from the user's index (ZREVRANGE, no key scans), then reads the
// metas in one pipelined round trip. With ClientCache the metas come from the
// client-side cache when they can: the metas of sessions not active since the
// last listing do not change, and a cached meta whose last_active_at differs from
// the index score (a turn happened since) is read again from the server.
func (s *Store) Sessions(ctx context.Context, scope memory.Scope, q ports.SessionQuery) ([]session.Meta, error) {
	c, err := s.conn()
	if err != nil {
		return nil, err
	}
	limit := q.Limit
	if limit <= 0 || limit > ports.MaxSessionList {
		limit = ports.MaxSessionList
	}
	entries, err := c.Do(ctx, c.B().Zrevrange().Key(s.indexKey(scope)).Start(0).Stop(-1).Withscores().Build()).AsZScores()
	if err != nil {
		return nil, wrapErr("read session index", err)
	}
	var refs []session.Ref
	var scores []int64
	for _, e := range entries {
		ref, ok := refFromIndexMember(scope, e.Member)
		if ok && (q.SessionID == "" || ref.SessionID == q.SessionID) {
			refs, scores = append(refs, ref), append(scores, int64(e.Score))
		}
	}
	metas, err := s.metas(ctx, c, refs, scores)
	if err != nil {
		return nil, err
	}
	out := make([]session.Meta, 0, min(limit, len(metas)))
	for _, m := range metas {
		if m.Live() && len(out) < limit {
			out = append(out, m)
		}
	}
	return out, nil
}

// metas reads the metas and held counts of refs; a meta that expired is zero.
func (s *Store) metas(ctx context.Context, c rueidis.Client, refs []session.Ref, scores []int64) ([]session.Meta, error) {
	if len(refs) == 0 {
		return nil, nil
	}
	cached := make([]rueidis.CacheableTTL, len(refs))
	for i, r := range refs {
		cached[i] = rueidis.CT(c.B().Hgetall().Key(s.keys(r).meta).Cache(), time.Minute)
	}
	maps := make([]map[string]string, len(refs))
	var stale []int
	for i, res := range c.DoMultiCache(ctx, cached...) {
		f, err := res.AsStrMap()
		if err != nil {
			return nil, wrapErr("read session meta", err)
		}
		maps[i] = f
		if res.IsCacheHit() && f["last_active_at"] != "" {
			if at, err := parseTime(f["last_active_at"]); err != nil || at.UnixMicro() != scores[i] {
				stale = append(stale, i)
			}
		}
	}
	if err := s.refetch(ctx, c, refs, maps, stale); err != nil {
		return nil, err
	}
	lens := make(rueidis.Commands, len(refs))
	for i, r := range refs {
		lens[i] = c.B().Llen().Key(s.keys(r).messages).Build()
	}
	out := make([]session.Meta, len(refs))
	for i, res := range c.DoMulti(ctx, lens...) {
		held, err := res.AsInt64()
		if err != nil {
			return nil, wrapErr("read session length", err)
		}
		if out[i], _, err = metaFromMap(refs[i], maps[i], int(held)); err != nil {
			return nil, err
		}
	}
	return out, nil
}

// refetch reads the stale cached metas from the server.
func (s *Store) refetch(ctx context.Context, c rueidis.Client, refs []session.Ref, maps []map[string]string, stale []int) error {
	if len(stale) == 0 {
		return nil
	}
	cmds := make(rueidis.Commands, len(stale))
	for j, i := range stale {
		cmds[j] = c.B().Hgetall().Key(s.keys(refs[i]).meta).Build()
	}
	for j, res := range c.DoMulti(ctx, cmds...) {
		f, err := res.AsStrMap()
		if err != nil {
			return wrapErr("read session meta", err)
		}
		maps[stale[j]] = f
	}
	return nil
}

// DeleteSession runs the delete script.
func (s *Store) DeleteSession(ctx context.Context, ref session.Ref) error {
	c, err := s.conn()
	if err != nil {
		return err
	}
	k := s.keys(ref)
	n, err := scriptDelete.Exec(ctx, c, []string{k.messages, k.meta, k.summary, k.exchanges, k.claim, k.index, k.folds},
		[]string{k.indexMember, k.foldMember}).AsInt64()
	if err != nil {
		return wrapErr("delete session", err)
	}
	if n == 0 {
		return fmt.Errorf("redisstore: %s: %w", ref, ports.ErrNotFound)
	}
	return nil
}

func firstErr(errs ...error) error {
	if i := slices.IndexFunc(errs, func(e error) bool { return e != nil }); i >= 0 {
		return errs[i]
	}
	return nil
}
