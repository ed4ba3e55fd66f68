package sqlstore

import (
	"context"
	"fmt"
	"testing"

	"engram/adapters/clock"
	"engram/domain/memory"
)

// BenchmarkScrub measures the scrub that ends every erasure, right after the purge
// of one user with n memories, messages, lexical documents and vectors (9n rows,
// as BenchmarkPurgeUser writes them) next to a neighbour of 10,000 (90,000 rows)
// that stays: SQLite's checkpoint of the log into the file and its truncation,
// PostgreSQL's VACUUM of every table. ns/op is the scrub alone; it asserts
// nothing beyond the purge's counts.
func BenchmarkScrub(b *testing.B) {
	for _, n := range []int{1000, 10000} {
		b.Run(fmt.Sprintf("SQLite/%d", n), func(b *testing.B) { benchmarkScrub(b, openSQLiteForTest, n) })
		b.Run(fmt.Sprintf("Postgres/%d", n), func(b *testing.B) { benchmarkScrub(b, openPostgresForTest, n) })
	}
}

func benchmarkScrub(b *testing.B, open func(testing.TB) *DB, n int) {
	db := open(b)
	ctx := context.Background()
	truth := NewUserPurger(db, clock.System{})
	lexical := NewLexicalDocs(db)
	vectors := NewLocalVectorStore(db, "bench", 8)
	scrubber := NewScrubber(db)
	populate(b, db, memory.Scope{Tenant: "bench", User: "other"}, 10000)
	if err := scrubber.Scrub(ctx); err != nil {
		b.Fatal(err)
	}
	round := 0
	for b.Loop() {
		b.StopTimer()
		round++
		scope := memory.Scope{Tenant: "bench", User: fmt.Sprintf("erased-%d", round)}
		populate(b, db, scope, n)
		if removed, err := truth.PurgeUser(ctx, scope); err != nil || removed[PurgedMemories] != int64(n) {
			b.Fatalf("truth purge: %v %v", removed, err)
		}
		if _, err := lexical.PurgeUser(ctx, scope); err != nil {
			b.Fatal(err)
		}
		if _, err := vectors.DeleteUserVectors(ctx, scope.Tenant, scope.User); err != nil {
			b.Fatal(err)
		}
		b.StartTimer()
		if err := scrubber.Scrub(ctx); err != nil {
			b.Fatal(err)
		}
	}
}
