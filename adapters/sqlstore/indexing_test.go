package sqlstore

import (
	"context"
	"testing"
	"time"

	"engram/domain/conversation"
	"engram/domain/memory"
	"engram/ports"
	"engram/test/contract"
)

func TestVectorSyncStore_SQLite(t *testing.T) {
	t.Parallel()
	contract.RunVectorQueue(t, func(t *testing.T) contract.VectorQueueStores {
		db := openSQLiteForTest(t)
		return contract.VectorQueueStores{Sync: NewVectorQueue(db), Memories: NewMemoryStore(db), Messages: NewMessageStore(db)}
	})
}

func TestVectorSyncStore_Postgres(t *testing.T) {
	t.Parallel()
	contract.RunVectorQueue(t, func(t *testing.T) contract.VectorQueueStores {
		db := openPostgresForTest(t)
		return contract.VectorQueueStores{Sync: NewVectorQueue(db), Memories: NewMemoryStore(db), Messages: NewMessageStore(db)}
	})
}

func TestVectorSyncStore_countsVectorsOfOtherModels(t *testing.T) {
	t.Parallel()
	db := openSQLiteForTest(t)
	ctx := context.Background()
	mems, msgs, sync := NewMemoryStore(db), NewMessageStore(db), NewVectorQueue(db)
	scope := memory.Scope{Tenant: "t1", User: "u1"}
	at := time.Date(2026, 11, 30, 9, 0, 0, 0, time.UTC)
	d, _ := memory.ParseDraft(memory.DraftInput{Type: "fact", Content: "likes tea"}, memory.Source{Channel: memory.ChannelTool})
	m, err := mems.Update(ctx, scope, memory.MustParseKey("drink"), func(*memory.Memory) (memory.Change, error) {
		m, err := memory.New("m1", scope, memory.MustParseKey("drink"), d, memory.Policy{}, at)
		return memory.Change{Memory: m, Event: memory.NewEvent("e1", memory.OpAdd, nil, m)}, err
	})
	if err != nil {
		t.Fatal(err)
	}
	msg, _ := conversation.New(scope, conversation.Input{ConversationID: "c", Role: "user", Content: "hello"}, "s1", at, 0)
	if _, err := msgs.Ingest(ctx, scope, []conversation.Message{msg}); err != nil {
		t.Fatal(err)
	}
	claim := ports.VectorClaim{Worker: "w", Now: at, Lease: time.Minute, Limit: 10}
	if _, err := sync.ClaimMemories(ctx, claim); err != nil {
		t.Fatal(err)
	}
	if _, err := sync.ClaimMessages(ctx, claim); err != nil {
		t.Fatal(err)
	}
	if _, err := sync.FinishMemories(ctx, "w", []ports.MemoryVectorOutcome{{ID: m.ID(), Version: m.Version(),
		Vector: m.MarkVectorSynced("model-a", 1, "h", at).Vector()}}); err != nil {
		t.Fatal(err)
	}
	if _, err := sync.FinishMessages(ctx, "w", []ports.MessageVectorOutcome{{Seq: "s1", Status: memory.VectorSynced,
		SyncedAt: at, Model: "model-a", TextHash: "h", Embedding: []float32{1}}}); err != nil {
		t.Fatal(err)
	}
	if a, b, err := sync.CountOtherModels(ctx, "model-a"); err != nil || a != 0 || b != 0 {
		t.Fatalf("other than model-a: %d memories, %d messages, %v; want none", a, b, err)
	}
	if a, b, err := sync.CountOtherModels(ctx, "model-b"); err != nil || a != 1 || b != 1 {
		t.Fatalf("other than model-b: %d memories, %d messages, %v; want 1 and 1", a, b, err)
	}
}
