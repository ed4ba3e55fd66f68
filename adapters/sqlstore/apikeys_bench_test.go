package sqlstore

import (
	"context"
	"testing"

	"engram/adapters/clock"
	"engram/adapters/ulids"
	"engram/app/auth"
)

// What authenticating a request costs: a configured key reads nothing; a stored
// key reads the key generation (one row by primary key) and, while it holds,
// answers from the process's cache. Figures in docs/BENCHMARKS.md.

func BenchmarkAuthenticate_SQLite(b *testing.B) { benchmarkAuthenticate(b, openSQLiteForTest(b)) }

func BenchmarkAuthenticate_Postgres(b *testing.B) { benchmarkAuthenticate(b, openPostgresForTest(b)) }

func benchmarkAuthenticate(b *testing.B, db *DB) {
	const configured = "configured-key-0123456789abcdef"
	ctx := context.Background()
	store := NewAPIKeyStore(db)
	authn := auth.New(auth.Options{Configured: map[string]string{configured: "globex"}}, store, clock.System{}, ulids.New())
	stored, err := authn.CreateKey(ctx, "acme", "alice")
	if err != nil {
		b.Fatal(err)
	}
	for _, c := range []struct{ name, key string }{{"configured key", configured}, {"stored key", stored}} {
		b.Run(c.name, func(b *testing.B) {
			if _, err := authn.Authenticate(ctx, c.key); err != nil {
				b.Fatal(err)
			}
			for b.Loop() {
				if _, err := authn.Authenticate(ctx, c.key); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
	b.Run("generation read alone", func(b *testing.B) {
		for b.Loop() {
			if _, err := store.Generation(ctx); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("stored key, parallel", func(b *testing.B) {
		b.RunParallel(func(pb *testing.PB) {
			for pb.Next() {
				if _, err := authn.Authenticate(ctx, stored); err != nil {
					b.Error(err)
					return
				}
			}
		})
	})
}
