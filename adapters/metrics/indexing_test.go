package metrics_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"engram/adapters/metrics"
	"engram/app/indexing"
	"engram/domain/memory"
	"engram/ports"
)

type stubEmbedder struct{ err error }

func (s stubEmbedder) Embed(_ context.Context, texts []string) ([][]float32, error) {
	if s.err != nil {
		return nil, s.err
	}
	return make([][]float32, len(texts)), nil
}
func (stubEmbedder) Model() string  { return "stub" }
func (stubEmbedder) Dimension() int { return 1 }

type stubIndex struct{ err error }

func (s stubIndex) Upsert(context.Context, []ports.VectorRecord) error { return s.err }
func (s stubIndex) Delete(context.Context, string, []string) error     { return s.err }
func (s stubIndex) Search(context.Context, ports.VectorQuery) ([]ports.VectorHit, error) {
	return nil, s.err
}

func TestIndexing_decoratorsCountCallsTextsAndRecords(t *testing.T) {
	t.Parallel()
	m := metrics.New()
	x := m.Indexing()
	ctx := context.Background()
	e := x.Embedder(stubEmbedder{})
	_, _ = e.Embed(ctx, []string{"a", "b", "c"})
	_, _ = x.Embedder(stubEmbedder{err: context.DeadlineExceeded}).Embed(ctx, []string{"d"})
	if got := value(t, m, "engram_embed_calls_total", "outcome", "ok"); got != 1 {
		t.Errorf("ok embed calls %v", got)
	}
	if got := value(t, m, "engram_embed_calls_total", "outcome", "timeout"); got != 1 {
		t.Errorf("timed-out embed calls %v", got)
	}
	if got := value(t, m, "engram_embed_texts_total"); got != 3 {
		t.Errorf("texts %v, want only the successful call's 3", got)
	}
	if e.Model() != "stub" || e.Dimension() != 1 {
		t.Error("the decorator hides the embedder's model")
	}

	ix := x.VectorIndex(stubIndex{})
	_ = ix.Upsert(ctx, make([]ports.VectorRecord, 4))
	_ = ix.Delete(ctx, "t", []string{"a", "b"})
	_ = x.VectorIndex(stubIndex{err: errors.New("down")}).Upsert(ctx, make([]ports.VectorRecord, 9))
	if got := value(t, m, "engram_vector_records_total", "op", "upsert"); got != 4 {
		t.Errorf("upserted records %v, want 4", got)
	}
	if got := value(t, m, "engram_vector_records_total", "op", "delete"); got != 2 {
		t.Errorf("deleted records %v, want 2", got)
	}
	if got := value(t, m, "engram_vector_operations_total", "op", "upsert", "outcome", "error"); got != 1 {
		t.Errorf("failed upserts %v", got)
	}
	if got := value(t, m, "engram_vector_operation_duration_seconds", "op", "upsert"); got != 2 {
		t.Errorf("upsert latency samples %v", got)
	}
}

func TestIndexing_batchReportsAndBacklog(t *testing.T) {
	t.Parallel()
	m := metrics.New()
	x := m.Indexing()
	x.Batch(indexing.Report{Kind: memory.KindMemory, Claimed: 5, Embedded: 3, Unchanged: 1, Removed: 1, Upserted: 3,
		Synced: 4, Failed: 1, Failures: map[string]int{"embed": 1}, Lags: []time.Duration{time.Second, 2 * time.Second}, Stale: 0})
	checks := []struct {
		name   string
		labels []string
		want   float64
	}{
		{"engram_indexer_items_total", []string{"kind", "memory", "outcome", "synced"}, 4},
		{"engram_indexer_items_total", []string{"kind", "memory", "outcome", "failed"}, 1},
		{"engram_indexer_embedded_total", []string{"kind", "memory"}, 3},
		{"engram_indexer_unchanged_total", []string{"kind", "memory"}, 1},
		{"engram_indexer_upserts_total", []string{"kind", "memory"}, 3},
		{"engram_indexer_deletes_total", nil, 1},
		{"engram_indexer_failures_total", []string{"kind", "memory", "stage", "embed"}, 1},
		{"engram_index_lag_seconds", []string{"kind", "memory"}, 2},
	}
	for _, c := range checks {
		if got := value(t, m, c.name, c.labels...); got != c.want {
			t.Errorf("%s%v = %v, want %v", c.name, c.labels, got, c.want)
		}
	}

	oldest := time.Now().Add(-time.Minute)
	x.Backlog(func(context.Context) (ports.VectorBacklog, error) {
		return ports.VectorBacklog{DirtyMemories: 7, FailedMessages: 2, OldestDirty: oldest}, nil
	})
	if got := value(t, m, "engram_vector_backlog", "kind", "memory", "status", "DIRTY"); got != 7 {
		t.Errorf("dirty memories %v", got)
	}
	if got := value(t, m, "engram_vector_backlog", "kind", "message", "status", "FAILED"); got != 2 {
		t.Errorf("failed messages %v", got)
	}
	if got := value(t, m, "engram_vector_backlog_oldest_age_seconds"); got < 59 || got > 120 {
		t.Errorf("oldest age %v, want about 60 s", got)
	}
}

func TestIndexing_backlogUnknownWhenTheStoreFails(t *testing.T) {
	t.Parallel()
	m := metrics.New()
	m.Indexing().Backlog(func(context.Context) (ports.VectorBacklog, error) {
		return ports.VectorBacklog{}, ports.ErrUnavailable
	})
	if got := value(t, m, "engram_vector_backlog", "kind", "memory", "status", "DIRTY"); got != -1 {
		t.Errorf("backlog on failure %v, want -1", got)
	}
	if got := value(t, m, "engram_vector_backlog_oldest_age_seconds"); got != -1 {
		t.Errorf("age on failure %v, want -1", got)
	}
}
