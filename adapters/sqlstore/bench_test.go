package sqlstore

import (
	"context"
	"testing"
	"time"

	"github.com/oklog/ulid/v2"

	"engram/domain/memory"
)

// BenchmarkMemoryStore_Save measures memory_save through Update: one transaction
// that reads the row, writes the memory and its event. It asserts nothing.
func BenchmarkMemoryStore_Save(b *testing.B) {
	b.Run("SQLite", func(b *testing.B) { benchmarkSave(b, openSQLiteForTest) })
	b.Run("Postgres", func(b *testing.B) { benchmarkSave(b, openPostgresForTest) })
}

func benchmarkSave(b *testing.B, open func(testing.TB) *DB) {
	store := NewMemoryStore(open(b))
	ctx := context.Background()
	scope := memory.Scope{Tenant: "bench", User: "u1"}
	d, err := memory.ParseDraft(memory.DraftInput{Type: "preference", Content: "喜欢吃辣的川菜, and answers in short paragraphs"},
		memory.Source{Channel: memory.ChannelTool, ConversationID: "c-1", MessageID: "m-1"})
	if err != nil {
		b.Fatal(err)
	}
	save := func(key memory.Key) error {
		_, err := store.Update(ctx, scope, key, func(cur *memory.Memory) (memory.Change, error) {
			now := time.Now()
			if cur == nil {
				m, err := memory.New(ulid.Make().String(), scope, key, d, memory.Policy{}, now)
				if err != nil {
					return memory.Change{}, err
				}
				return memory.Change{Memory: m, Event: memory.NewEvent(ulid.Make().String(), memory.OpAdd, nil, m)}, nil
			}
			next, err := cur.Replace(d, memory.Policy{}, now)
			if err != nil {
				return memory.Change{}, err
			}
			return memory.Change{Memory: next, Event: memory.NewEvent(ulid.Make().String(), memory.OpUpdate, cur, next)}, nil
		})
		return err
	}

	b.Run("new key", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			if err := save(memory.MustParseKey("new-" + ulid.Make().String())); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("same key", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			if err := save(memory.MustParseKey("same")); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("parallel new keys", func(b *testing.B) {
		b.ReportAllocs()
		b.SetParallelism(4)
		b.RunParallel(func(pb *testing.PB) {
			for pb.Next() {
				if err := save(memory.MustParseKey("par-" + ulid.Make().String())); err != nil {
					b.Error(err)
					return
				}
			}
		})
	})
}
