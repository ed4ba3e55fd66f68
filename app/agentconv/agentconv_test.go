package agentconv_test

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	appconv "engram/app/agentconv"
	"engram/domain/agentconv"
	"engram/domain/memory"
	"engram/ports"
	"engram/test/teststore"
)

var alice = memory.Scope{Tenant: "acme", User: "alice"}

// sessionLog records what the use cases did to the session, one line a call.
type sessionLog struct {
	mu        sync.Mutex
	calls     []string
	failNext  error
	hasRecord bool
}

func (s *sessionLog) Record(_ context.Context, _ memory.Scope, sessionID string, x agentconv.Exchange) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if err := s.failNext; err != nil {
		s.failNext = nil
		return err
	}
	s.hasRecord = true
	s.calls = append(s.calls, fmt.Sprintf("record %s: %s | %s", sessionID, x.User, x.Assistant))
	return nil
}

func (s *sessionLog) Delete(_ context.Context, _ memory.Scope, sessionID string) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if err := s.failNext; err != nil {
		s.failNext = nil
		return err
	}
	s.calls = append(s.calls, "delete "+sessionID)
	if !s.hasRecord {
		return ports.NotFound("session", sessionID)
	}
	s.hasRecord = false
	return nil
}

func (s *sessionLog) take() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := s.calls
	s.calls = nil
	return out
}

type counterIDs struct {
	mu sync.Mutex
	n  int
}

func (c *counterIDs) New() string {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.n++
	return fmt.Sprintf("ID%04d", c.n)
}

type fixedClock struct{}

func (fixedClock) Now() time.Time { return time.Date(2026, 12, 2, 9, 0, 0, 0, time.UTC) }

func newService(t *testing.T) (*appconv.Service, *sessionLog) {
	t.Helper()
	log := &sessionLog{}
	return appconv.New(appconv.Deps{Store: teststore.New(t).AgentConversations, Sessions: log, IDs: &counterIDs{}, Clock: fixedClock{}}), log
}

func user(text string) appconv.NewItem {
	return appconv.NewItem{Type: "message", Role: agentconv.RoleUser, Text: text, Raw: []byte(`{"role":"user"}`)}
}

func assistant(text string) appconv.NewItem {
	return appconv.NewItem{Type: "message", Role: agentconv.RoleAssistant, Text: text, Raw: []byte(`{"role":"assistant"}`)}
}

func toolCall() appconv.NewItem {
	return appconv.NewItem{Type: "function_call", Raw: []byte(`{"type":"function_call"}`)}
}

func must(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

func TestAddItems_recordsEachTurnOnceItsAnswerIsAdded(t *testing.T) {
	t.Parallel()
	svc, log := newService(t)
	ctx := context.Background()
	c, err := svc.Create(ctx, appconv.Create{Scope: alice})
	must(t, err)
	add := func(items ...appconv.NewItem) []agentconv.Item {
		t.Helper()
		added, err := svc.AddItems(ctx, appconv.AddItems{Scope: alice, ConversationID: c.ID, Items: items})
		must(t, err)
		return added
	}
	added := add(user("I am vegetarian"))
	if calls := log.take(); len(calls) != 0 || !strings.HasPrefix(added[0].ID, "msg_") {
		t.Errorf("a question without its answer: %v, id %s", calls, added[0].ID)
	}
	add(toolCall(), assistant("Noted"))
	if calls := log.take(); !slices.Equal(calls, []string{"record " + c.ID + ": I am vegetarian | Noted"}) {
		t.Errorf("the answer added: %v", calls)
	}
	add(user("Ideas?"), assistant("Ratatouille"))
	if calls := log.take(); !slices.Equal(calls, []string{"record " + c.ID + ": Ideas? | Ratatouille"}) {
		t.Errorf("a second turn: %v", calls)
	}
	// More answer to the last turn: the recorded turn changed, the session is rebuilt.
	add(assistant("or a curry"))
	want := []string{"delete " + c.ID, "record " + c.ID + ": I am vegetarian | Noted", "record " + c.ID + ": Ideas? | Ratatouille\n\nor a curry"}
	if calls := log.take(); !slices.Equal(calls, want) {
		t.Errorf("the last turn grew: %v, want %v", calls, want)
	}
}

func TestDeleteItem_rebuildsTheSessionOnlyWhenItsTurnsChange(t *testing.T) {
	t.Parallel()
	svc, log := newService(t)
	ctx := context.Background()
	c, err := svc.Create(ctx, appconv.Create{Scope: alice, Items: []appconv.NewItem{user("q1"), toolCall(), assistant("a1"), user("q2"), assistant("a2")}})
	must(t, err)
	if calls := log.take(); len(calls) != 2 {
		t.Fatalf("create recorded %v", calls)
	}
	page, err := svc.ListItems(ctx, appconv.ListItems{Scope: alice, ConversationID: c.ID})
	must(t, err)
	items := page.Items // oldest first: q1, fc, a1, q2, a2
	must(t, svc.DeleteItem(ctx, alice, c.ID, items[1].ID))
	if calls := log.take(); len(calls) != 0 {
		t.Errorf("deleting the tool call touched the session: %v", calls)
	}
	must(t, svc.DeleteItem(ctx, alice, c.ID, items[4].ID))
	if calls, want := log.take(), []string{"delete " + c.ID, "record " + c.ID + ": q1 | a1"}; !slices.Equal(calls, want) {
		t.Errorf("deleting an answer: %v, want %v", calls, want)
	}
	if _, err := svc.GetItem(ctx, alice, c.ID, items[4].ID); !errors.Is(err, ports.ErrNotFound) {
		t.Errorf("the deleted item: %v", err)
	}
}

func TestDelete_aSessionThatCannotBeDeletedLeavesTheConversation(t *testing.T) {
	t.Parallel()
	svc, log := newService(t)
	ctx := context.Background()
	c, err := svc.Create(ctx, appconv.Create{Scope: alice, Items: []appconv.NewItem{user("q"), assistant("a")}})
	must(t, err)
	log.take()
	log.failNext = ports.ErrUnavailable
	if err := svc.Delete(ctx, alice, c.ID); !errors.Is(err, ports.ErrUnavailable) {
		t.Fatalf("Delete with the session store down: %v", err)
	}
	if _, err := svc.Get(ctx, alice, c.ID); err != nil {
		t.Fatalf("the conversation after a failed delete: %v", err)
	}
	must(t, svc.Delete(ctx, alice, c.ID))
	if calls := log.take(); !slices.Equal(calls, []string{"delete " + c.ID}) {
		t.Errorf("delete: %v", calls)
	}
	if _, err := svc.Get(ctx, alice, c.ID); !errors.Is(err, ports.ErrNotFound) {
		t.Errorf("the deleted conversation: %v", err)
	}
}

func TestAddItems_storedEvenWhenTheSessionIsNotUpdated(t *testing.T) {
	t.Parallel()
	svc, log := newService(t)
	ctx := context.Background()
	c, err := svc.Create(ctx, appconv.Create{Scope: alice})
	must(t, err)
	log.failNext = ports.ErrUnavailable
	added, err := svc.AddItems(ctx, appconv.AddItems{Scope: alice, ConversationID: c.ID, Items: []appconv.NewItem{user("q"), assistant("a")}})
	var se *appconv.SessionError
	if !errors.As(err, &se) || !errors.Is(err, ports.ErrUnavailable) || len(added) != 2 {
		t.Fatalf("AddItems with the session store down = %v, %v", added, err)
	}
	page, err := svc.ListItems(ctx, appconv.ListItems{Scope: alice, ConversationID: c.ID})
	if err != nil || len(page.Items) != 2 {
		t.Errorf("items after: %v, %v", page.Items, err)
	}
}

func TestRequests_refusedWithWhatToFix(t *testing.T) {
	t.Parallel()
	svc, _ := newService(t)
	ctx := context.Background()
	c, err := svc.Create(ctx, appconv.Create{Scope: alice})
	must(t, err)
	tooMany := map[string]string{}
	for i := range agentconv.MaxMetadataKeys + 1 {
		tooMany[fmt.Sprint(i)] = "x"
	}
	for name, err := range map[string]error{
		"no items": func() error {
			_, err := svc.AddItems(ctx, appconv.AddItems{Scope: alice, ConversationID: c.ID})
			return err
		}(),
		"limit too high": func() error {
			_, err := svc.ListItems(ctx, appconv.ListItems{Scope: alice, ConversationID: c.ID, Limit: 101})
			return err
		}(),
		"metadata": func() error { _, err := svc.Create(ctx, appconv.Create{Scope: alice, Metadata: tooMany}); return err }(),
		"item id": func() error {
			_, err := svc.AddItems(ctx, appconv.AddItems{Scope: alice, ConversationID: c.ID, Items: []appconv.NewItem{{ID: "a\x01", Type: "reasoning", Raw: []byte(`{}`)}}})
			return err
		}(),
	} {
		if err == nil || !strings.HasPrefix(err.Error(), "invalid ") {
			t.Errorf("%s: %v, want a validation error", name, err)
		}
	}
}
