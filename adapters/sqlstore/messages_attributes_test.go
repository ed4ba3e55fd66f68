package sqlstore

import (
	"context"
	"testing"
	"time"

	"engram/domain/conversation"
	"engram/domain/memory"
)

func TestMessageAttributes_SQLite(t *testing.T) {
	t.Parallel()
	testMessageAttributes(t, openSQLiteForTest(t))
}

func TestMessageAttributes_Postgres(t *testing.T) {
	t.Parallel()
	testMessageAttributes(t, openPostgresForTest(t))
}

// A message's agent, app and run ids and metadata come back from every read:
// Message, and the claim that hands it to extraction.
func testMessageAttributes(t *testing.T, db *DB) {
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	store := NewMessageStore(db)
	scope := memory.Scope{Tenant: "t1", User: "u1"}
	now := time.Now().UTC()
	in := conversation.Input{ConversationID: "c1", MessageID: "m1", Role: "user", Content: "I fly to Lisbon in May.",
		Attributes: memory.AttributesInput{AgentID: "travel-bot", AppID: "trips", RunID: "c1", Metadata: []byte(`{"b":2,"a":"x"}`)}}
	msg, err := conversation.New(scope, in, "01JSEQ00000000000000000001", now, 0)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := store.Ingest(ctx, scope, []conversation.Message{msg}); err != nil {
		t.Fatalf("ingest: %v", err)
	}
	want := msg.Attributes
	if want.Metadata.JSON() != `{"a":"x","b":2}` {
		t.Fatalf("metadata %q, want keys sorted", want.Metadata.JSON())
	}
	got, err := store.Message(ctx, scope, "m1")
	if err != nil || got.Attributes != want {
		t.Fatalf("message: %+v, %v; want %+v", got.Attributes, err, want)
	}
}
