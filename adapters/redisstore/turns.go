package redisstore

import (
	"context"
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/redis/rueidis"

	"engram/domain/memory"
	"engram/domain/session"
	"engram/ports"
)

// The turns stream (<p>:turns) carries each new exchange, added by the append
// script, to the relay that writes it into the extraction channel; its consumer
// group is relayGroup. A handled entry is acknowledged and deleted, so the stream
// holds only the turns still on their way.
const relayGroup = "engram-relay"

var _ ports.TurnQueue = (*Store)(nil)

func (s *Store) turnsKey() string { return s.prefix + ":turns" }

// turnJSON is a queued turn.
type turnJSON struct {
	Tenant    string `json:"tenant"`
	User      string `json:"user"`
	Flow      string `json:"flow"`
	Session   string `json:"session"`
	ID        string `json:"id"`
	FlowName  string `json:"flow_name,omitempty"`
	UserMsg   string `json:"user_message"`
	Assistant string `json:"assistant_message"`
	At        string `json:"at"`
}

func encodeTurn(x session.Exchange) (string, error) {
	b, err := json.Marshal(turnJSON{Tenant: x.Ref.Scope.Tenant, User: x.Ref.Scope.User, Flow: x.Ref.FlowID, Session: x.Ref.SessionID,
		ID: x.ID, FlowName: x.FlowName, UserMsg: x.User, Assistant: x.Assistant, At: formatTime(x.At)})
	return string(b), err
}

func decodeTurn(s string) (session.Exchange, error) {
	var j turnJSON
	if err := json.Unmarshal([]byte(s), &j); err != nil {
		return session.Exchange{}, fmt.Errorf("redisstore: a queued turn is not JSON: %w", err)
	}
	at, err := parseTime(j.At)
	if err != nil {
		return session.Exchange{}, fmt.Errorf("redisstore: queued turn %s: time: %w", j.ID, err)
	}
	ref := session.Ref{Scope: memory.Scope{Tenant: j.Tenant, User: j.User}, FlowID: j.Flow, SessionID: j.Session}
	return session.Exchange{Ref: ref, ID: j.ID, FlowName: j.FlowName, User: j.UserMsg, Assistant: j.Assistant, At: at}, nil
}

// ensureGroup creates the consumer group once (from the stream's start, so no
// turn added before it is missed).
func (s *Store) ensureGroup(ctx context.Context, c rueidis.Client) error {
	s.mu.Lock()
	done := s.groupReady
	s.mu.Unlock()
	if done {
		return nil
	}
	err := c.Do(ctx, c.B().XgroupCreate().Key(s.turnsKey()).Group(relayGroup).Id("0").Mkstream().Build()).Error()
	if err != nil && !strings.Contains(err.Error(), "BUSYGROUP") {
		return wrapErr("create the relay group", err)
	}
	s.mu.Lock()
	s.groupReady = true
	s.mu.Unlock()
	return nil
}

// ReadTurns reads new entries for consumer (XREADGROUP … BLOCK … >).
func (s *Store) ReadTurns(ctx context.Context, consumer string, limit int, wait time.Duration) ([]ports.QueuedTurn, error) {
	return s.readGroup(ctx, consumer, limit, max(wait.Milliseconds(), 1), ">")
}

// PendingTurns re-reads the consumer's own unacknowledged entries (XREADGROUP … 0).
func (s *Store) PendingTurns(ctx context.Context, consumer string, limit int) ([]ports.QueuedTurn, error) {
	return s.readGroup(ctx, consumer, limit, 0, "0")
}

func (s *Store) readGroup(ctx context.Context, consumer string, limit int, blockMS int64, id string) ([]ports.QueuedTurn, error) {
	c, err := s.conn()
	if err != nil {
		return nil, err
	}
	if err := s.ensureGroup(ctx, c); err != nil {
		return nil, err
	}
	cmd := c.B().Xreadgroup().Group(relayGroup, consumer).Count(int64(limit))
	var res map[string][]rueidis.XRangeEntry
	if blockMS > 0 {
		res, err = c.Do(ctx, cmd.Block(blockMS).Streams().Key(s.turnsKey()).Id(id).Build()).AsXRead()
	} else {
		res, err = c.Do(ctx, cmd.Streams().Key(s.turnsKey()).Id(id).Build()).AsXRead()
	}
	if rueidis.IsRedisNil(err) {
		return nil, nil // nothing within wait
	}
	if err != nil {
		if strings.Contains(err.Error(), "NOGROUP") {
			s.mu.Lock()
			s.groupReady = false // the stream was deleted; make the group again
			s.mu.Unlock()
		}
		return nil, wrapErr("read turns", err)
	}
	return turnsFrom(res[s.turnsKey()]), nil
}

// ClaimStaleTurns takes over entries another consumer read and never
// acknowledged (XAUTOCLAIM).
func (s *Store) ClaimStaleTurns(ctx context.Context, consumer string, idle time.Duration, limit int) ([]ports.QueuedTurn, error) {
	c, err := s.conn()
	if err != nil {
		return nil, err
	}
	if err := s.ensureGroup(ctx, c); err != nil {
		return nil, err
	}
	arr, err := c.Do(ctx, c.B().Xautoclaim().Key(s.turnsKey()).Group(relayGroup).Consumer(consumer).
		MinIdleTime(strconv.FormatInt(idle.Milliseconds(), 10)).Start("0").Count(int64(limit)).Build()).ToArray()
	if err != nil {
		return nil, wrapErr("claim stale turns", err)
	}
	if len(arr) < 2 {
		return nil, nil
	}
	entries, err := arr[1].AsXRange()
	if err != nil {
		return nil, wrapErr("claim stale turns", err)
	}
	return turnsFrom(entries), nil
}

func turnsFrom(entries []rueidis.XRangeEntry) []ports.QueuedTurn {
	out := make([]ports.QueuedTurn, 0, len(entries))
	for _, e := range entries {
		x, err := decodeTurn(e.FieldValues["turn"])
		out = append(out, ports.QueuedTurn{ID: e.ID, Exchange: x, Err: err})
	}
	return out
}

var scriptAck = rueidis.NewLuaScript(`redis.call('XACK', KEYS[1], ARGV[1], unpack(ARGV, 2))
return redis.call('XDEL', KEYS[1], unpack(ARGV, 2))`)

// AckTurns acknowledges and deletes handled entries in one step.
func (s *Store) AckTurns(ctx context.Context, ids []string) error {
	if len(ids) == 0 {
		return nil
	}
	c, err := s.conn()
	if err != nil {
		return err
	}
	return wrapErr("ack turns", scriptAck.Exec(ctx, c, []string{s.turnsKey()}, append([]string{relayGroup}, ids...)).Error())
}

// TurnBacklog counts the turns still on their way to the extraction channel.
func (s *Store) TurnBacklog(ctx context.Context) (int64, error) {
	c, err := s.conn()
	if err != nil {
		return 0, err
	}
	n, err := c.Do(ctx, c.B().Xlen().Key(s.turnsKey()).Build()).AsInt64()
	return n, wrapErr("count queued turns", err)
}
