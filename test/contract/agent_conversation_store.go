package contract

import (
	"errors"
	"fmt"
	"reflect"
	"sync"
	"testing"
	"time"

	"engram/domain/agentconv"
	"engram/domain/memory"
	"engram/ports"
)

// RunAgentConversationStore is the contract every ports.AgentConversationStore
// adapter must pass. open returns an empty store; each case opens its own.
func RunAgentConversationStore(t *testing.T, open func(t *testing.T) ports.AgentConversationStore) {
	t.Helper()
	at := time.Date(2026, 12, 2, 9, 0, 0, 123456789, time.UTC)
	alice := memory.Scope{Tenant: "acme", User: "alice"}
	bob := memory.Scope{Tenant: "acme", User: "bob"}
	conv := func(id string, sc memory.Scope) agentconv.Conversation {
		return agentconv.Conversation{ID: id, Scope: sc, CreatedAt: at, Metadata: map[string]string{"topic": "菜单"}}
	}
	item := func(id string, role agentconv.Role, raw string) agentconv.Item {
		return agentconv.Item{ID: id, Type: "message", Role: role, Text: "text of " + id, Raw: []byte(raw)}
	}
	ids := func(items []agentconv.Item) []string {
		out := make([]string, len(items))
		for i, it := range items {
			out[i] = it.ID
		}
		return out
	}

	t.Run("items keep their bytes and their order; pages follow after", func(t *testing.T) {
		t.Parallel()
		s, ctx := open(t), memTestContext(t)
		call := agentconv.Item{ID: "fc_1", Type: "function_call", Raw: []byte(`{"type":"function_call", "name":"w","arguments":"{\"city\":\"巴黎\"}" }`)}
		must(t, s.Create(ctx, conv("conv_1", alice), []agentconv.Item{item("msg_1", agentconv.RoleUser, `{"role":"user","content":"hi"}`)}))
		added, err := s.Append(ctx, alice, "conv_1", []agentconv.Item{call, item("msg_2", agentconv.RoleAssistant, `{}`)})
		if err != nil || len(added) != 2 || added[0].Seq != 2 || added[1].Seq != 3 {
			t.Fatalf("Append = %+v, %v", added, err)
		}
		got, err := s.Item(ctx, alice, "conv_1", "fc_1")
		if want := call; err != nil || !reflect.DeepEqual(got, agentconv.Item{ID: want.ID, Seq: 2, Type: want.Type, Raw: want.Raw}) {
			t.Errorf("Item = %+v, %v", got, err)
		}
		for _, tc := range []struct {
			q        ports.ItemQuery
			want     []string
			wantMore bool
		}{
			{ports.ItemQuery{}, []string{"msg_1", "fc_1", "msg_2"}, false},
			{ports.ItemQuery{Limit: 2}, []string{"msg_1", "fc_1"}, true},
			{ports.ItemQuery{Limit: 2, After: "fc_1"}, []string{"msg_2"}, false},
			{ports.ItemQuery{Limit: 2, Descending: true}, []string{"msg_2", "fc_1"}, true},
			{ports.ItemQuery{Limit: 5, Descending: true, After: "fc_1"}, []string{"msg_1"}, false},
		} {
			items, more, err := s.Items(ctx, alice, "conv_1", tc.q)
			if err != nil || !reflect.DeepEqual(ids(items), tc.want) || more != tc.wantMore {
				t.Errorf("Items(%+v) = %v more %v, %v; want %v more %v", tc.q, ids(items), more, err, tc.want, tc.wantMore)
			}
		}
		c, err := s.Conversation(ctx, alice, "conv_1")
		want := conv("conv_1", alice)
		want.CreatedAt = at.Truncate(time.Microsecond)
		if err != nil || !reflect.DeepEqual(c, want) {
			t.Errorf("Conversation = %+v, %v; want %+v", c, err, want)
		}
	})

	t.Run("metadata is replaced whole", func(t *testing.T) {
		t.Parallel()
		s, ctx := open(t), memTestContext(t)
		must(t, s.Create(ctx, conv("conv_m", alice), nil))
		got, err := s.SetMetadata(ctx, alice, "conv_m", map[string]string{"mood": "calme"})
		if err != nil || !reflect.DeepEqual(got.Metadata, map[string]string{"mood": "calme"}) || got.ID != "conv_m" {
			t.Errorf("SetMetadata = %+v, %v", got, err)
		}
		if c, err := s.Conversation(ctx, alice, "conv_m"); err != nil || !reflect.DeepEqual(c.Metadata, got.Metadata) {
			t.Errorf("after: %+v, %v", c, err)
		}
		if _, err := s.SetMetadata(ctx, bob, "conv_m", nil); !errors.Is(err, ports.ErrNotFound) {
			t.Errorf("as another user: %v", err)
		}
	})

	t.Run("another user finds nothing of the conversation", func(t *testing.T) {
		t.Parallel()
		s, ctx := open(t), memTestContext(t)
		must(t, s.Create(ctx, conv("conv_a", alice), []agentconv.Item{item("msg_1", agentconv.RoleUser, `{}`)}))
		checks := map[string]error{
			"Conversation": func() error { _, err := s.Conversation(ctx, bob, "conv_a"); return err }(),
			"Item":         func() error { _, err := s.Item(ctx, bob, "conv_a", "msg_1"); return err }(),
			"Items":        func() error { _, _, err := s.Items(ctx, bob, "conv_a", ports.ItemQuery{}); return err }(),
			"Append": func() error {
				_, err := s.Append(ctx, bob, "conv_a", []agentconv.Item{item("msg_9", "", `{}`)})
				return err
			}(),
			"DeleteItem": s.DeleteItem(ctx, bob, "conv_a", "msg_1"),
			"Delete":     s.Delete(ctx, bob, "conv_a"),
		}
		for name, err := range checks {
			if !errors.Is(err, ports.ErrNotFound) {
				t.Errorf("%s as another user: %v, want not found", name, err)
			}
		}
		if items, _, err := s.Items(ctx, alice, "conv_a", ports.ItemQuery{}); err != nil || len(items) != 1 {
			t.Errorf("alice's items after bob's tries: %v, %v", ids(items), err)
		}
	})

	t.Run("deleting an item or the conversation removes it; an item id is used once", func(t *testing.T) {
		t.Parallel()
		s, ctx := open(t), memTestContext(t)
		must(t, s.Create(ctx, conv("conv_d", alice), []agentconv.Item{item("msg_1", agentconv.RoleUser, `{}`), item("msg_2", agentconv.RoleAssistant, `{}`)}))
		if _, err := s.Append(ctx, alice, "conv_d", []agentconv.Item{item("msg_1", agentconv.RoleUser, `{}`)}); !errors.Is(err, ports.ErrConflict) {
			t.Errorf("append of an id already in the conversation: %v, want conflict", err)
		}
		must(t, s.DeleteItem(ctx, alice, "conv_d", "msg_1"))
		if _, err := s.Item(ctx, alice, "conv_d", "msg_1"); !errors.Is(err, ports.ErrNotFound) {
			t.Errorf("deleted item: %v", err)
		}
		if _, _, err := s.Items(ctx, alice, "conv_d", ports.ItemQuery{After: "msg_1"}); !errors.Is(err, ports.ErrNotFound) {
			t.Errorf("after a deleted item: %v", err)
		}
		must(t, s.Delete(ctx, alice, "conv_d"))
		if _, err := s.Conversation(ctx, alice, "conv_d"); !errors.Is(err, ports.ErrNotFound) {
			t.Errorf("deleted conversation: %v", err)
		}
		if err := s.Delete(ctx, alice, "conv_d"); !errors.Is(err, ports.ErrNotFound) {
			t.Errorf("second delete: %v", err)
		}
	})

	t.Run("parallel appends to one conversation lose no item and share no seq", func(t *testing.T) {
		t.Parallel()
		s, ctx := open(t), memTestContext(t)
		must(t, s.Create(ctx, conv("conv_p", alice), nil))
		var wg sync.WaitGroup
		errs := make([]error, 8)
		for w := range 8 {
			wg.Go(func() {
				_, errs[w] = s.Append(ctx, alice, "conv_p", []agentconv.Item{
					item(fmt.Sprintf("msg_%d_a", w), agentconv.RoleUser, `{}`), item(fmt.Sprintf("msg_%d_b", w), agentconv.RoleAssistant, `{}`)})
			})
		}
		wg.Wait()
		for _, err := range errs {
			must(t, err)
		}
		items, _, err := s.Items(ctx, alice, "conv_p", ports.ItemQuery{})
		if err != nil || len(items) != 16 {
			t.Fatalf("items %v, %v", ids(items), err)
		}
		for i := 0; i < len(items); i += 2 {
			if items[i].Seq != int64(i+1) || items[i+1].ID[:len(items[i].ID)-1] != items[i].ID[:len(items[i].ID)-1] {
				t.Errorf("an append's items are not together: %v", ids(items))
			}
		}
	})
}
