package messages_test

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"engram/adapters/ulids"
	"engram/app/messages"
	"engram/domain/conversation"
	"engram/domain/invalid"
	"engram/domain/memory"
	"engram/ports"
	"engram/test/teststore"
)

type clock struct{ t time.Time }

func (c clock) Now() time.Time { return c.t }

type notes struct{ due []time.Time }

func (n *notes) Notify(due time.Time) { n.due = append(n.due, due) }

var (
	scope = memory.Scope{Tenant: "t1", User: "u1"}
	now   = time.Date(2026, 11, 30, 9, 0, 0, 0, time.UTC)
)

func newService(t *testing.T, n messages.Notifier) *messages.Service {
	return messages.New(teststore.New(t).Messages, clock{now}, ulids.New(), messages.Options{Debounce: 12 * time.Second, Notifier: n})
}

func TestPostBatch_notifiesTheLatestNewDeadlineOnce(t *testing.T) {
	t.Parallel()
	n := &notes{}
	svc := newService(t, n)
	_, err := svc.PostBatch(context.Background(), messages.PostBatch{Scope: scope, Messages: []conversation.Input{
		{ConversationID: "c1", Role: "user", Content: "I like tea."},
		{ConversationID: "c1", Role: "assistant", Content: "Nice."},
	}})
	if err != nil {
		t.Fatal(err)
	}
	if len(n.due) != 1 || !n.due[0].Equal(now.Add(12*time.Second)) {
		t.Errorf("notified %v", n.due)
	}
	if _, err := svc.Post(context.Background(), messages.Post{Scope: scope, Message: conversation.Input{ConversationID: "c1", Role: "assistant", Content: "Only context."}}); err != nil {
		t.Fatal(err)
	}
	if len(n.due) != 1 {
		t.Errorf("an assistant message woke the worker: %v", n.due)
	}
}

func TestPostBatch_refusesTheWholeBatchForOneBadItem(t *testing.T) {
	t.Parallel()
	svc := newService(t, nil)
	cases := map[string]struct {
		msgs []conversation.Input
		want string
	}{
		"empty":           {nil, "messages"},
		"bad content":     {[]conversation.Input{{ConversationID: "c", Role: "user", Content: "ok"}, {ConversationID: "c", Role: "user", Content: " "}}, "messages[1].content"},
		"id reused":       {[]conversation.Input{{ConversationID: "c", MessageID: "m", Role: "user", Content: "a"}, {ConversationID: "c", MessageID: "m", Role: "user", Content: "b"}}, "messages[1].message_id"},
		"too many":        {make([]conversation.Input, messages.MaxBatch+1), "messages"},
		"unknown role":    {[]conversation.Input{{ConversationID: "c", Role: "tool", Content: "x"}}, "messages[0].role"},
		"no conversation": {[]conversation.Input{{Role: "user", Content: "x"}}, "messages[0].conversation_id"},
	}
	for name, tc := range cases {
		_, err := svc.PostBatch(context.Background(), messages.PostBatch{Scope: scope, Messages: tc.msgs})
		var ve *invalid.Error
		if !errors.As(err, &ve) || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: err = %v, want a validation error naming %s", name, err, tc.want)
		}
	}
}

func TestGet_unknownMessageIsNotFound(t *testing.T) {
	t.Parallel()
	svc := newService(t, nil)
	if _, err := svc.Get(context.Background(), messages.Get{Scope: scope, MessageID: "nope"}); !errors.Is(err, ports.ErrNotFound) {
		t.Errorf("err = %v", err)
	}
}
