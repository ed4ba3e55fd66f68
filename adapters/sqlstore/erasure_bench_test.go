package sqlstore

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/oklog/ulid/v2"

	"engram/adapters/clock"
	"engram/domain/conversation"
	"engram/domain/memory"
	"engram/domain/vector"
	"engram/ports"
)

// BenchmarkPurgeUser measures an erasure's SQL steps for one user with n memories
// (two events each), n messages with their embeddings and lexical documents, and
// n local vectors: the truth purge, the lexical purge and the local vectors'
// delete. ns/op is one whole user; it asserts nothing beyond the counts.
func BenchmarkPurgeUser(b *testing.B) {
	for _, n := range []int{1000, 10000} {
		b.Run(fmt.Sprintf("SQLite/%d", n), func(b *testing.B) { benchmarkPurge(b, openSQLiteForTest, n) })
		b.Run(fmt.Sprintf("Postgres/%d", n), func(b *testing.B) { benchmarkPurge(b, openPostgresForTest, n) })
	}
}

func benchmarkPurge(b *testing.B, open func(testing.TB) *DB, n int) {
	db := open(b)
	ctx := context.Background()
	truth := NewUserPurger(db, clock.System{})
	lexical := NewLexicalDocs(db)
	vectors := NewLocalVectorStore(db, "bench", 8)
	other := memory.Scope{Tenant: "bench", User: "other"}
	populate(b, db, other, n) // a neighbour the purges must skip
	round := 0
	for b.Loop() {
		b.StopTimer()
		round++
		scope := memory.Scope{Tenant: "bench", User: fmt.Sprintf("erased-%d", round)}
		populate(b, db, scope, n)
		b.StartTimer()
		removed, err := truth.PurgeUser(ctx, scope)
		if err != nil || removed[PurgedMemories] != int64(n) || removed[PurgedMessages] != int64(n) {
			b.Fatalf("truth purge: %v %v", removed, err)
		}
		if removed, err := lexical.PurgeUser(ctx, scope); err != nil || removed[PurgedLexicalDocs] != int64(2*n) {
			b.Fatalf("lexical purge: %v %v", removed, err)
		}
		if gone, err := vectors.DeleteUserVectors(ctx, scope.Tenant, scope.User); err != nil || gone != int64(2*n) {
			b.Fatalf("vectors: %d %v", gone, err)
		}
	}
}

// populate writes n memories (with two events each), n messages with embeddings,
// 2n lexical documents and 2n local vectors for scope, in bulk.
func populate(b *testing.B, db *DB, scope memory.Scope, n int) {
	b.Helper()
	ctx := context.Background()
	now := time.Now().UTC()
	d, _ := memory.ParseDraft(memory.DraftInput{Type: "fact", Content: "likes green tea and long walks"}, memory.Source{Channel: memory.ChannelTool})
	var (
		mems   []memoryRow
		events []eventRow
		msgs   []messageRow
		embs   []embeddingRow
		docs   []ports.LexicalDoc
		vecs   []ports.VectorRecord
	)
	for i := range n {
		k, _ := memory.ParseKey(fmt.Sprintf("k%06d", i))
		m, err := memory.New(ulid.Make().String(), scope, k, d, memory.Policy{}, now)
		if err != nil {
			b.Fatal(err)
		}
		next, _ := m.Append("and cake", memory.Source{Channel: memory.ChannelTool}, now)
		mems = append(mems, toMemoryRow(next.State()))
		for _, e := range []memory.Event{memory.NewEvent(ulid.Make().String(), memory.OpAdd, nil, m), memory.NewEvent(ulid.Make().String(), memory.OpAppend, &m, next)} {
			row, err := toEventRow(e)
			if err != nil {
				b.Fatal(err)
			}
			events = append(events, row)
		}
		msg, err := conversation.New(scope, conversation.Input{ConversationID: "c", Role: "user", Content: "I like green tea"}, ulid.Make().String(), now, 0)
		if err != nil {
			b.Fatal(err)
		}
		msgs = append(msgs, toMessageRow(msg))
		embs = append(embs, embeddingRow{ID: msg.Seq, Model: "bench", TextHash: "h", Embedding: vector.Encode(make([]float32, 8))})
		for _, id := range []string{m.ID(), msg.Seq} {
			docs = append(docs, ports.LexicalDoc{Tenant: scope.Tenant, User: scope.User, Kind: memory.KindMessage, ID: id, At: now, Terms: []string{"green", "tea"}})
			vecs = append(vecs, ports.VectorRecord{ID: id, Tenant: scope.Tenant, User: scope.User, Kind: memory.KindMessage, At: now, Vector: []float32{1, 0, 0, 0, 0, 0, 0, 0}})
		}
	}
	for start := 0; start < n; start += 500 {
		end := min(start+500, n)
		inserts := []any{ptr(mems[start:end]), ptr(events[2*start : 2*end]), ptr(msgs[start:end]), ptr(embs[start:end])}
		for _, rows := range inserts {
			if _, err := db.Bun().NewInsert().Model(rows).Exec(ctx); err != nil {
				b.Fatal(err)
			}
		}
	}
	if err := NewLexicalDocs(db).Put(ctx, docs); err != nil {
		b.Fatal(err)
	}
	if err := NewLocalVectorStore(db, "bench", 8).SaveVectors(ctx, vecs); err != nil {
		b.Fatal(err)
	}
}

func ptr[T any](v T) *T { return &v }

// BenchmarkMemoryStore_GetWithTombstones measures GET of one memory of a user with
// 1000 memories while other users are being erased: the read and its tombstone
// check. It asserts nothing.
func BenchmarkMemoryStore_GetWithTombstones(b *testing.B) {
	b.Run("SQLite", func(b *testing.B) { benchmarkGet(b, openSQLiteForTest) })
	b.Run("Postgres", func(b *testing.B) { benchmarkGet(b, openPostgresForTest) })
}

func benchmarkGet(b *testing.B, open func(testing.TB) *DB) {
	db := open(b)
	ctx := context.Background()
	scope := memory.Scope{Tenant: "bench", User: "reader"}
	populate(b, db, scope, 1000)
	for i := range 100 {
		other := memory.Scope{Tenant: "bench", User: fmt.Sprintf("u%04d", i)}
		if _, _, err := NewErasureStore(db).BeginErasure(ctx, ports.Job{ID: ulid.Make().String(), Scope: other, Kind: ports.JobEraseUser, CreatedAt: time.Now()}); err != nil {
			b.Fatal(err)
		}
	}
	store := NewMemoryStore(db)
	key, _ := memory.ParseKey("k000500")
	b.ReportAllocs()
	for b.Loop() {
		if _, err := store.Get(ctx, scope, key); err != nil {
			b.Fatal(err)
		}
	}
}
