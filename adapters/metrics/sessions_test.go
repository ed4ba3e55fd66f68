package metrics_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"engram/adapters/metrics"
	"engram/app/sessions"
	"engram/domain/invalid"
	"engram/domain/memory"
	"engram/domain/session"
	"engram/ports"
)

type stubSessions struct {
	res sessions.Recorded
	err error
}

func (s *stubSessions) Record(context.Context, sessions.Record) (sessions.Recorded, error) {
	return s.res, s.err
}
func (s *stubSessions) Get(context.Context, sessions.Get) (session.View, error) {
	return session.View{}, nil
}
func (s *stubSessions) List(context.Context, sessions.List) ([]session.Meta, error) { return nil, nil }
func (s *stubSessions) Delete(context.Context, sessions.Delete) error               { return nil }

func TestSessions_recordStagesOutcomesFoldsAndFallbacks(t *testing.T) {
	t.Parallel()
	m := metrics.New()
	stub := &stubSessions{res: sessions.Recorded{Timings: map[string]time.Duration{"session_store": time.Millisecond, "messages": 2 * time.Millisecond}}}
	s := m.SessionRecords(stub)
	ctx := context.Background()
	_, _ = s.Record(ctx, sessions.Record{})
	stub.res.Duplicate = true
	_, _ = s.Record(ctx, sessions.Record{})
	stub.err = invalid.Field("flow_id", "must not be empty")
	_, _ = s.Record(ctx, sessions.Record{})
	stub.err = errors.New("redis and sql down")
	_, _ = s.Record(ctx, sessions.Record{})

	for _, tc := range []struct {
		name   string
		labels []string
		want   float64
	}{
		{"engram_session_record_duration_seconds", []string{"stage", "total"}, 2},
		{"engram_session_record_duration_seconds", []string{"stage", "session_store"}, 2},
		{"engram_session_record_duration_seconds", []string{"stage", "messages"}, 2},
		{"engram_session_exchanges_total", []string{"outcome", "recorded"}, 1},
		{"engram_session_exchanges_total", []string{"outcome", "duplicate"}, 1},
		{"engram_session_exchanges_total", []string{"outcome", "invalid"}, 1},
		{"engram_session_exchanges_total", []string{"outcome", "failed"}, 1},
	} {
		if got := value(t, m, tc.name, tc.labels...); got != tc.want {
			t.Errorf("%s%v = %v, want %v", tc.name, tc.labels, got, tc.want)
		}
	}

	e := m.SessionEvents()
	ref := session.Ref{Scope: memory.Scope{Tenant: "acme", User: "u1"}, FlowID: "f", SessionID: "s"}
	e.Folded(ref, sessions.FoldDone, time.Second, ports.LLMUsage{Calls: 1})
	e.Folded(ref, sessions.FoldFailed, time.Second, ports.LLMUsage{})
	e.Fallback("append")
	e.PrimaryUp(false)
	if value(t, m, "engram_session_redis_up") != 0 || value(t, m, "engram_session_redis_fallbacks_total", "op", "append") != 1 ||
		value(t, m, "engram_session_folds_total", "outcome", "done") != 1 || value(t, m, "engram_session_fold_duration_seconds", "outcome", "failed") != 1 {
		t.Error("folds or fallbacks not counted")
	}
	e.PrimaryUp(true)
	e.Drained(3)
	e.Relayed(5, 1)
	if value(t, m, "engram_session_relayed_turns_total", "outcome", "written") != 5 || value(t, m, "engram_session_relayed_turns_total", "outcome", "dropped") != 1 {
		t.Error("relayed turns not counted")
	}
	if value(t, m, "engram_session_redis_up") != 1 || value(t, m, "engram_session_redis_drained_total") != 3 {
		t.Error("recovery not counted")
	}
}
