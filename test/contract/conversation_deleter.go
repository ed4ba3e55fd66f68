package contract

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/oklog/ulid/v2"

	"engram/domain/conversation"
	"engram/domain/memory"
	"engram/ports"
)

// ConversationStores are one backend's message store and its conversation
// deleter (the same rows).
type ConversationStores struct {
	Messages MessageStore
	Deleter  ports.ConversationDeleter
}

// RunConversationDeleter is the contract every ports.ConversationDeleter adapter
// must pass. open returns empty stores; each case opens its own.
func RunConversationDeleter(t *testing.T, open func(t *testing.T) ConversationStores) {
	t.Helper()
	at := time.Date(2026, 12, 1, 10, 0, 0, 0, time.UTC)
	alice, bob := memory.Scope{Tenant: "acme", User: "alice"}, memory.Scope{Tenant: "acme", User: "bob"}
	msg := func(t *testing.T, sc memory.Scope, conv, id string, created time.Time) conversation.Message {
		t.Helper()
		m, err := conversation.New(sc, conversation.Input{ConversationID: conv, MessageID: id, Role: "user", Content: "hello " + id,
			CreatedAt: created}, ulid.Make().String(), created, 0)
		if err != nil {
			t.Fatal(err)
		}
		return m
	}
	ingest := func(t *testing.T, s ConversationStores, sc memory.Scope, msgs ...conversation.Message) error {
		t.Helper()
		_, err := s.Messages.Ingest(context.Background(), sc, msgs)
		return err
	}

	t.Run("deletes the conversation's messages, and only those", func(t *testing.T) {
		t.Parallel()
		s := open(t)
		ctx := context.Background()
		must(t, ingest(t, s, alice, msg(t, alice, "s1", "a", at), msg(t, alice, "s1", "b", at), msg(t, alice, "s2", "c", at)))
		must(t, ingest(t, s, bob, msg(t, bob, "s1", "d", at)))
		gone, err := s.Deleter.DeleteConversation(ctx, alice, "s1", at.Add(time.Minute))
		if err != nil || len(gone) != 2 {
			t.Fatalf("DeleteConversation = %d messages, %v; want s1's 2", len(gone), err)
		}
		for _, id := range []string{"a", "b"} {
			if _, err := s.Messages.Message(ctx, alice, id); !errors.Is(err, ports.ErrNotFound) {
				t.Errorf("message %s of the deleted conversation: %v, want not found", id, err)
			}
		}
		if _, err := s.Messages.Message(ctx, alice, "c"); err != nil {
			t.Errorf("another conversation's message went: %v", err)
		}
		if _, err := s.Messages.Message(ctx, bob, "d"); err != nil {
			t.Errorf("another user's conversation of the same id went: %v", err)
		}
		if gone, err := s.Deleter.DeleteConversation(ctx, alice, "s1", at.Add(2*time.Minute)); err != nil || len(gone) != 0 {
			t.Errorf("deleting it again = %d, %v; want nothing and no error", len(gone), err)
		}
	})

	t.Run("a message made before the deletion is refused after it, a later one starts anew", func(t *testing.T) {
		t.Parallel()
		s := open(t)
		deletedAt := at.Add(time.Minute)
		if _, err := s.Deleter.DeleteConversation(context.Background(), alice, "s1", deletedAt); err != nil {
			t.Fatal(err)
		}
		var refused *ports.ConversationDeletedError
		err := ingest(t, s, alice, msg(t, alice, "s2", "fine", at), msg(t, alice, "s1", "late", deletedAt))
		if !errors.As(err, &refused) || refused.ConversationID != "s1" || !refused.DeletedAt.Equal(deletedAt) || !errors.Is(err, ports.ErrConflict) {
			t.Fatalf("ingest of a message made at the deletion = %v, want a ConversationDeletedError naming s1", err)
		}
		if _, err := s.Messages.Message(context.Background(), alice, "fine"); !errors.Is(err, ports.ErrNotFound) {
			t.Errorf("the refused batch stored part of itself: %v", err)
		}
		must(t, ingest(t, s, alice, msg(t, alice, "s1", "new", deletedAt.Add(time.Microsecond))))
		must(t, ingest(t, s, bob, msg(t, bob, "s1", "bobs", at)))
	})
}
