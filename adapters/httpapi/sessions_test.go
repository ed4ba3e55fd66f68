package httpapi_test

import (
	"context"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/danielgtaylor/huma/v2/humatest"

	"engram/adapters/httpapi"
	"engram/adapters/sqlstore"
	"engram/adapters/ulids"
	"engram/app/auth"
	"engram/app/messages"
	"engram/app/sessions"
	"engram/domain/conversation"
	"engram/domain/session"
	"engram/ports"
	"engram/test/fakeclock"
	"engram/test/teststore"
)

func newSessionsAPI(t *testing.T) (humatest.TestAPI, *sqlstore.MessageStore) {
	t.Helper()
	clk := fakeclock.New(time.Date(2026, 12, 1, 9, 0, 0, 0, time.UTC))
	ids := ulids.New()
	stores := teststore.New(t)
	msgStore := stores.Messages
	svc := sessions.New(sessions.Deps{
		Store:         stores.Sessions(clk, session.Limits{}),
		Conversations: messages.New(msgStore, clk, ids, messages.Options{Debounce: 12 * time.Second}),
		Clock:         clk, IDs: ids,
	}, sessions.Options{})
	authn := auth.New(auth.Options{Open: true}, stores.APIKeys, clk, ids)
	api := httpapi.New(http.NewServeMux(), httpapi.Options{MaxBodyBytes: 1 << 20}, authn)
	httpapi.RegisterSessions(api, svc)
	return humatest.Wrap(t, api.Root), msgStore
}

func TestRecordExchange_202ThenIdempotentOnTheExchangeID(t *testing.T) {
	t.Parallel()
	api, msgs := newSessionsAPI(t)
	body := map[string]any{"flow_id": "weekly-report", "flow_name": "周报生成", "exchange_id": "t1",
		"user_message": "帮我写本周周报，我完成了 3 个需求", "assistant_message": "好的，这是草稿……"}
	resp := api.Post("/v1/users/alice/sessions/s1/exchanges", body)
	if resp.Code != http.StatusAccepted {
		t.Fatalf("%d %s", resp.Code, resp.Body.String())
	}
	got := decode[httpapi.RecordedExchange](t, resp)
	if got != (httpapi.RecordedExchange{ExchangeID: "t1", SessionID: "s1", FlowID: "weekly-report", MessageCount: 2}) {
		t.Errorf("recorded %+v", got)
	}
	resp = api.Post("/v1/users/alice/sessions/s1/exchanges", body)
	if resp.Code != http.StatusOK || !decode[httpapi.RecordedExchange](t, resp).Duplicate {
		t.Fatalf("retry: %d %s", resp.Code, resp.Body.String())
	}
	// The user's message is in the extraction channel once, waiting for it.
	due, err := msgs.ClaimDue(context.Background(), ports.Claim{Worker: "w", Now: time.Date(2026, 12, 2, 0, 0, 0, 0, time.UTC),
		Lease: time.Minute, MaxConversations: 10})
	if err != nil || len(due) != 1 || due[0].ConversationID != "s1" || due[0].Content != body["user_message"] {
		t.Fatalf("due for extraction: %+v, %v", due, err)
	}
	if a, err := msgs.Message(context.Background(), due[0].Scope, strings.TrimSuffix(due[0].ID, "-u")+"-a"); err != nil ||
		a.Role != conversation.RoleAssistant || a.Status != conversation.StatusSkipped {
		t.Errorf("assistant message %+v, %v", a, err)
	}

	body["user_message"] = "something else"
	resp = api.Post("/v1/users/alice/sessions/s1/exchanges", body)
	if resp.Code != http.StatusConflict || !strings.Contains(resp.Body.String(), "exchange_id") {
		t.Errorf("a reused exchange_id with other content: %d %s", resp.Code, resp.Body.String())
	}
}

func TestRecordExchange_badInputIs422NamingTheField(t *testing.T) {
	t.Parallel()
	api, _ := newSessionsAPI(t)
	ok := map[string]any{"flow_id": "f", "user_message": "u", "assistant_message": "a"}
	with := func(k string, v any) map[string]any {
		out := map[string]any{}
		for key, val := range ok {
			out[key] = val
		}
		if v == nil {
			delete(out, k)
		} else {
			out[k] = v
		}
		return out
	}
	cases := map[string]struct {
		path     string
		body     map[string]any
		location string
	}{
		// huma reports a missing property at "body", naming it in the message.
		"no flow_id":           {"/v1/users/alice/sessions/s1/exchanges", with("flow_id", nil), "body"},
		"blank user_message":   {"/v1/users/alice/sessions/s1/exchanges", with("user_message", "   "), "body.user_message"},
		"no assistant_message": {"/v1/users/alice/sessions/s1/exchanges", with("assistant_message", nil), "body"},
		"control in flow_id":   {"/v1/users/alice/sessions/s1/exchanges", with("flow_id", "f\u0007"), "body.flow_id"},
		"control in session":   {"/v1/users/alice/sessions/s%01/exchanges", ok, "path.session"},
		"exchange_id too long": {"/v1/users/alice/sessions/s1/exchanges", with("exchange_id", strings.Repeat("x", 129)), "body.exchange_id"},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			p := expectProblem(t, api.Post(tc.path, tc.body), http.StatusUnprocessableEntity, tc.location)
			field := tc.location[strings.LastIndex(tc.location, ".")+1:]
			if tc.location == "body" {
				field = strings.TrimPrefix(name, "no ")
			}
			if !strings.Contains(p.Detail, field) {
				t.Errorf("detail %q does not name %s", p.Detail, field)
			}
		})
	}
}

func TestSessions_listGet(t *testing.T) {
	t.Parallel()
	api, _ := newSessionsAPI(t)
	for i, s := range []string{"s1", "s2", "s1"} {
		resp := api.Post("/v1/users/bob/sessions/"+s+"/exchanges", map[string]any{"flow_id": "f", "flow_name": "Flow",
			"user_message": "question " + string(rune('a'+i)), "assistant_message": "answer"})
		if resp.Code != http.StatusAccepted {
			t.Fatalf("record: %d %s", resp.Code, resp.Body.String())
		}
	}
	list := decode[httpapi.SessionList](t, api.Get("/v1/users/bob/sessions"))
	if len(list.Items) != 2 || list.Items[0].SessionID != "s2" && list.Items[0].SessionID != "s1" || list.Items[0].FlowName != "Flow" {
		t.Fatalf("list %+v", list)
	}
	v := decode[httpapi.SessionView](t, api.Get("/v1/users/bob/sessions/s1?flow_id=f&limit=3"))
	if len(v.Messages) != 3 || v.Messages[0].Role != "assistant" || v.Messages[2].Content != "answer" || v.Meta.MessageCount != 4 ||
		v.Meta.Held != 4 || v.Meta.FlowID != "f" || v.Summary != "" || v.Meta.SummaryUpdatedAt != nil || v.Messages[2].Seq != 4 {
		t.Fatalf("session %+v", v)
	}
	if v := decode[httpapi.SessionView](t, api.Get("/v1/users/bob/sessions/s1")); len(v.Messages) != 4 {
		t.Errorf("without flow_id: %d messages", len(v.Messages))
	}
	p := expectProblem(t, api.Get("/v1/users/bob/sessions/nope"), http.StatusNotFound, "")
	if p.Detail != `session "nope" not found` {
		t.Errorf("404 detail %q", p.Detail)
	}
	expectProblem(t, api.Get("/v1/users/bob/sessions/s1?limit=5000"), http.StatusUnprocessableEntity, "query.limit")
	if other := decode[httpapi.SessionList](t, api.Get("/v1/users/carol/sessions")); len(other.Items) != 0 {
		t.Errorf("another user sees %+v", other)
	}
}
