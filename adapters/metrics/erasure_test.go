package metrics_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"engram/adapters/metrics"
	"engram/app/erasure"
	"engram/domain/memory"
	"engram/ports"
)

type stubEraser struct {
	created bool
	counts  map[string]int
	err     error
}

func (s *stubEraser) EraseUser(context.Context, erasure.EraseUser) (erasure.Erasure, error) {
	return erasure.Erasure{Created: s.created}, nil
}

func (s *stubEraser) DeleteMessage(_ context.Context, cmd erasure.DeleteMessage) (erasure.DeletedMessage, error) {
	out := erasure.DeletedMessage{}
	out.Message.Seq = "s1"
	if cmd.Cascade {
		k, _ := memory.ParseKey("diet")
		out.Purged = []memory.Key{k}
	}
	return out, nil
}

func (s *stubEraser) PurgeMemory(context.Context, erasure.PurgeMemory) (memory.Memory, error) {
	return memory.Memory{}, nil
}

func (s *stubEraser) DeleteSession(context.Context, erasure.DeleteSession) (erasure.DeletedSession, error) {
	return erasure.DeletedSession{}, nil
}

func (s *stubEraser) RunJob(context.Context, string, ports.Job) (map[string]int, error) {
	return s.counts, s.err
}

func (s *stubEraser) RetryAfter(ports.Job, error) (time.Duration, bool) { return time.Second, true }

func TestErasure_startedRunsDurationAndRowsByKind(t *testing.T) {
	t.Parallel()
	m := metrics.New()
	stub := &stubEraser{created: true}
	e := m.Erasure(stub)
	ctx := context.Background()

	_, _ = e.EraseUser(ctx, erasure.EraseUser{})
	stub.created = false // a repeated DELETE joins the open erasure
	_, _ = e.EraseUser(ctx, erasure.EraseUser{})

	stub.counts, stub.err = map[string]int{"memories": 3, "vectors": 5}, errors.New("vector store down")
	_, _ = e.RunJob(ctx, "w", ports.Job{})
	// The rerun starts from the counts the first run recorded: only the rest is new.
	stub.counts, stub.err = map[string]int{"memories": 4, "vectors": 9, "messages": 2}, nil
	_, _ = e.RunJob(ctx, "w", ports.Job{Counts: map[string]int{"memories": 3, "vectors": 5}})

	_, _ = e.DeleteMessage(ctx, erasure.DeleteMessage{Cascade: true})
	_, _ = e.PurgeMemory(ctx, erasure.PurgeMemory{})

	checks := []struct {
		name   string
		labels []string
		want   float64
	}{
		{"engram_erasures_started_total", nil, 1},
		{"engram_erasure_runs_total", []string{"outcome", "retry"}, 1},
		{"engram_erasure_runs_total", []string{"outcome", "done"}, 1},
		{"engram_erasure_run_duration_seconds", nil, 2},
		{"engram_erasure_rows_purged_total", []string{"kind", "memories"}, 4 + 1 + 1},
		{"engram_erasure_rows_purged_total", []string{"kind", "vectors"}, 9},
		{"engram_erasure_rows_purged_total", []string{"kind", "messages"}, 2 + 1},
		{"engram_erasures_single_total", []string{"what", "message_cascade"}, 1},
		{"engram_erasures_single_total", []string{"what", "memory"}, 1},
		{"engram_erasures_single_total", []string{"what", "message"}, 0},
	}
	for _, c := range checks {
		if got := value(t, m, c.name, c.labels...); got != c.want {
			t.Errorf("%s%v = %v, want %v", c.name, c.labels, got, c.want)
		}
	}
}
