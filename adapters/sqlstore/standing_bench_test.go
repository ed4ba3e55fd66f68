package sqlstore

import (
	"context"
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"
	"time"

	"github.com/oklog/ulid/v2"

	"engram/domain/memory"
)

// BenchmarkStandingMemories is the context call's standing read for a user
// with 100,000 memories (and, to show the cost does not follow the count, 1,000),
// 60 of them standing (30 constraints, 20 of importance
// 4 or 5, 10 pinned): both reads walk an index and stop at the limit, so the
// cost does not grow with the user's other memories. It reports the p95 of
// one read in ms (p50-ms, p95-ms) besides the mean (ns/op), and asserts the 60 come
// back.
//
//	go test -run '^$' -bench BenchmarkStandingMemories -benchtime 2000x ./adapters/sqlstore
func BenchmarkStandingMemories(b *testing.B) {
	b.Run("SQLite/1000", func(b *testing.B) { benchmarkStanding(b, openSQLiteForTest, 1000) })
	b.Run("SQLite/100000", func(b *testing.B) { benchmarkStanding(b, openSQLiteForTest, 100_000) })
	b.Run("Postgres/100000", func(b *testing.B) { benchmarkStanding(b, openPostgresForTest, 100_000) })
}

// benchmarkStanding times the read for a user with total memories.
func benchmarkStanding(b *testing.B, open func(testing.TB) *DB, total int) {
	const constraints, important, pinned = 30, 20, 10
	db := open(b)
	store := NewMemoryStore(db)
	ctx := context.Background()
	scope := memory.Scope{Tenant: "bench", User: "big"}
	now := time.Now().UTC()
	rng := rand.New(rand.NewPCG(1, 2))
	rows := make([]memoryRow, 0, 1000)
	flush := func() {
		if len(rows) == 0 {
			return
		}
		if _, err := db.bun.NewInsert().Model(&rows).Exec(ctx); err != nil {
			b.Fatal(err)
		}
		rows = rows[:0]
	}
	for i := range total {
		st := memory.State{ID: ulid.Make().String(), Scope: scope, Key: memory.MustParseKey(fmt.Sprintf("k.%06d", i)), Type: memory.TypeFact,
			Content: fmt.Sprintf("fact number %d about the user", i), Importance: 1 + rng.IntN(3), Confidence: 0.8, Active: true,
			Vector: memory.VectorState{Status: memory.VectorSynced}, Version: 1,
			CreatedAt: now.Add(-time.Duration(i) * time.Second), UpdatedAt: now.Add(-time.Duration(i) * time.Second)}
		switch {
		case i < constraints:
			st.Type = memory.TypeConstraint
		case i < constraints+important:
			st.Importance = 4 + rng.IntN(2)
		case i < constraints+important+pinned:
			st.Pinned = true
		}
		rows = append(rows, toMemoryRow(st))
		if len(rows) == cap(rows) {
			flush()
		}
	}
	flush()
	if db.dialect == DialectPostgres {
		if _, err := db.bun.ExecContext(ctx, "ANALYZE long_term_memories"); err != nil {
			b.Fatal(err)
		}
	}
	read := func() []memory.Memory {
		ms, err := store.StandingMemories(ctx, scope, memory.DefaultStandingMinImportance, now, 100)
		if err != nil {
			b.Fatal(err)
		}
		return ms
	}
	if got := len(read()); got != constraints+important+pinned {
		b.Fatalf("%d standing memories, want %d", got, constraints+important+pinned)
	}
	var took []time.Duration
	b.ResetTimer()
	for b.Loop() {
		start := time.Now()
		read()
		took = append(took, time.Since(start))
	}
	slices.Sort(took)
	b.ReportMetric(float64(took[len(took)/2].Microseconds())/1000, "p50-ms")
	b.ReportMetric(float64(took[len(took)*95/100].Microseconds())/1000, "p95-ms")
}
