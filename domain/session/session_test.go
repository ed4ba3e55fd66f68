package session_test

import (
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"engram/domain/conversation"
	"engram/domain/invalid"
	"engram/domain/memory"
	"engram/domain/session"
)

var (
	scope = memory.Scope{Tenant: "t1", User: "u1"}
	ref   = session.Ref{Scope: scope, FlowID: "f1", SessionID: "s1"}
	now   = time.Date(2026, 12, 1, 9, 30, 0, 123456789, time.FixedZone("CST", 8*3600))
)

func TestParseRef_validatesFlowAndSessionTogether(t *testing.T) {
	t.Parallel()
	cases := map[string]struct {
		flow, session string
		fields        []string
	}{
		"ok":                 {"f1", "s1", nil},
		"colons are ids too": {"a:b", "c:d", nil},
		"chinese":            {"流程", "会话一", nil},
		"empty both":         {"", "", []string{"session", "flow_id"}},
		"control character":  {"f\x00", "s1", []string{"flow_id"}},
		"too long":           {"f", strings.Repeat("s", 129), []string{"session"}},
		"invalid utf-8":      {"f", "s\xff", []string{"session"}},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			got, err := session.ParseRef(scope, tc.flow, tc.session)
			if len(tc.fields) == 0 {
				if err != nil || got.FlowID != tc.flow || got.SessionID != tc.session || got.Scope != scope {
					t.Fatalf("got %+v, %v", got, err)
				}
				return
			}
			if !slices.Equal(fieldsOf(t, err), tc.fields) {
				t.Fatalf("fields %v, want %v (%v)", fieldsOf(t, err), tc.fields, err)
			}
		})
	}
}

func TestNewExchange_validatesEveryField(t *testing.T) {
	t.Parallel()
	good := session.ExchangeInput{UserMessage: "我下周去东京出差", AssistantMessage: "好的，需要我帮你订酒店吗？"}
	cases := map[string]struct {
		edit   func(*session.ExchangeInput)
		fields []string
	}{
		"ok":                      {func(*session.ExchangeInput) {}, nil},
		"blank user message":      {func(in *session.ExchangeInput) { in.UserMessage = "  " }, []string{"user_message"}},
		"missing assistant":       {func(in *session.ExchangeInput) { in.AssistantMessage = "" }, []string{"assistant_message"}},
		"NUL in the answer":       {func(in *session.ExchangeInput) { in.AssistantMessage = "a\x00b" }, []string{"assistant_message"}},
		"invalid UTF-8":           {func(in *session.ExchangeInput) { in.UserMessage = "caf\xe9" }, []string{"user_message"}},
		"too long":                {func(in *session.ExchangeInput) { in.UserMessage = strings.Repeat("长", conversation.MaxContentLen+1) }, []string{"user_message"}},
		"flow name too long":      {func(in *session.ExchangeInput) { in.FlowName = strings.Repeat("n", 129) }, []string{"flow_name"}},
		"exchange id with spaces": {func(in *session.ExchangeInput) { in.ExchangeID = "turn 7" }, nil},
		"exchange id control":     {func(in *session.ExchangeInput) { in.ExchangeID = "t\n7" }, []string{"exchange_id"}},
		"all at once": {func(in *session.ExchangeInput) {
			in.ExchangeID, in.UserMessage, in.AssistantMessage = strings.Repeat("x", 200), "", ""
		}, []string{"exchange_id", "user_message", "assistant_message"}},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			in := good
			tc.edit(&in)
			x, err := session.NewExchange(ref, in, "GEN1", now)
			if len(tc.fields) > 0 {
				if !slices.Equal(fieldsOf(t, err), tc.fields) {
					t.Fatalf("fields %v, want %v (%v)", fieldsOf(t, err), tc.fields, err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if x.At != now.UTC().Truncate(time.Microsecond) || x.At.Location() != time.UTC {
				t.Errorf("At %v: want UTC to the microsecond", x.At)
			}
		})
	}
}

func TestExchange_messagesDeriveFromTheExchangeID(t *testing.T) {
	t.Parallel()
	in := session.ExchangeInput{FlowName: "  周报生成 ", UserMessage: "hi", AssistantMessage: "hello"}
	x, err := session.NewExchange(ref, in, "01GEN", now)
	if err != nil {
		t.Fatal(err)
	}
	if x.ID != "01GEN" || x.FlowName != "周报生成" {
		t.Fatalf("exchange %+v", x)
	}
	in.ExchangeID = "client-7"
	y, _ := session.NewExchange(ref, in, "01OTHER", now)
	msgs := y.Messages()
	want := []session.Message{
		{ID: "client-7/user", ExchangeID: "client-7", Role: conversation.RoleUser, Content: "hi", At: y.At},
		{ID: "client-7/assistant", ExchangeID: "client-7", Role: conversation.RoleAssistant, Content: "hello", At: y.At},
	}
	if !slices.Equal(msgs, want) {
		t.Fatalf("messages %+v", msgs)
	}
}

func TestPolicy_check(t *testing.T) {
	t.Parallel()
	cases := []struct {
		p          session.Policy
		maxHistory int
		ok         bool
	}{
		{session.Policy{Threshold: 30, Keep: 10}, 40, true},
		{session.Policy{Threshold: 40, Keep: 10}, 40, true},
		{session.Policy{Threshold: 41, Keep: 10}, 40, false},
		{session.Policy{Threshold: 30, Keep: 30}, 40, false},
		{session.Policy{Threshold: 30, Keep: -1}, 40, false},
	}
	for _, tc := range cases {
		if err := tc.p.Check(tc.maxHistory); (err == nil) != tc.ok {
			t.Errorf("%+v with history %d: %v", tc.p, tc.maxHistory, err)
		}
	}
}

func TestPolicy_plansAFoldOfAllButTheMostRecentTurns(t *testing.T) {
	t.Parallel()
	p := session.Policy{Threshold: 6, Keep: 2}.WithDefaults()
	cases := map[string]struct {
		view      session.View
		wantIDs   []string
		wantNoFor bool
	}{
		"below the threshold": {view: viewOf(turns(2)...), wantNoFor: true},
		"at the threshold": {view: viewOf(turns(3)...),
			wantIDs: []string{"x1/user", "x1/assistant", "x2/user", "x2/assistant"}},
		"odd keep moves the cut back to a turn boundary": {view: viewOf(append(turns(3), msg("x4/user", "x4"))...),
			// Keep 2 would cut inside x3; the cut moves before x3.
			wantIDs: []string{"x1/user", "x1/assistant", "x2/user", "x2/assistant"}},
		"one long turn cannot be cut": {view: viewOf(sameExchange(7)...), wantNoFor: true},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			tc.view.Summary = session.Summary{Text: "previous", Version: 4}
			plan, ok := p.Plan(tc.view)
			if keepNone := (session.Policy{Threshold: 6}); !tc.wantNoFor {
				all, ok := keepNone.Plan(tc.view)
				if !ok || len(all.Slice) != len(tc.view.Messages) {
					t.Errorf("keep 0 folds %d of %d messages", len(all.Slice), len(tc.view.Messages))
				}
			}
			if tc.wantNoFor {
				if ok {
					t.Fatalf("planned %+v", plan)
				}
				return
			}
			if !ok {
				t.Fatal("no plan")
			}
			if got := idsOf(plan.Slice); !slices.Equal(got, tc.wantIDs) {
				t.Errorf("slice %v, want %v", got, tc.wantIDs)
			}
			if plan.BaseVersion != 4 || plan.Previous != "previous" || plan.Ref != ref {
				t.Errorf("plan %+v", plan)
			}
			f := plan.Fold("new summary", "worker-1", p.Threshold, now)
			if !slices.Equal(f.MessageIDs, tc.wantIDs) || f.BaseVersion != 4 || f.Holder != "worker-1" ||
				f.At != now.UTC().Truncate(time.Microsecond) || f.FoldAt != 6 || f.Summary != "new summary" {
				t.Errorf("fold %+v", f)
			}
		})
	}
}

func TestPolicy_retriesAFailedFoldAfterTheDelay(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		delay time.Duration
		want  time.Time
	}{
		{0, now.Add(session.DefaultRetryDelay)},
		{time.Minute, now.Add(time.Minute)},
	} {
		p := session.Policy{RetryDelay: tc.delay}.WithDefaults()
		if got := p.RetryAt(now); !got.Equal(tc.want) {
			t.Errorf("delay %v: retry at %v, want %v", tc.delay, got, tc.want)
		}
	}
}

func TestMergeViews_keepsEveryMessageOnceInTimeOrder(t *testing.T) {
	t.Parallel()
	t0 := now.UTC()
	at := func(m session.Message, d time.Duration) session.Message { m.At = t0.Add(d); return m }
	redis := viewOf(at(msg("a/user", "a"), 0), at(msg("a/assistant", "a"), 0), at(msg("c/user", "c"), 3*time.Second), at(msg("c/assistant", "c"), 3*time.Second))
	redis.Meta.MessageCount, redis.Meta.CreatedAt, redis.Meta.LastActiveAt, redis.Meta.FlowName = 10, t0.Add(-time.Hour), t0.Add(3*time.Second), "new name"
	sql := viewOf(at(msg("b/user", "b"), time.Second), at(msg("b/assistant", "b"), time.Second), at(msg("c/user", "c"), 3*time.Second))
	sql.Meta.MessageCount, sql.Meta.CreatedAt, sql.Meta.LastActiveAt, sql.Meta.FlowName = 3, t0, t0.Add(time.Second), "old name"

	got := session.MergeViews(redis, sql)
	if ids := idsOf(got.Messages); !slices.Equal(ids, []string{"a/user", "a/assistant", "b/user", "b/assistant", "c/user", "c/assistant"}) {
		t.Fatalf("messages %v", ids)
	}
	for i, m := range got.Messages {
		if m.Seq != int64(i+1) {
			t.Errorf("message %d has seq %d", i, m.Seq)
		}
	}
	m := got.Meta
	if m.MessageCount != 12 || m.Held != 6 || !m.CreatedAt.Equal(t0.Add(-time.Hour)) || !m.LastActiveAt.Equal(t0.Add(3*time.Second)) || m.FlowName != "new name" {
		t.Errorf("meta %+v: want 10+3-1 messages, the earliest creation, the latest activity and its name", m)
	}
	if one := session.MergeViews(redis, session.View{}); one.Meta.MessageCount != 10 || len(one.Messages) != 4 {
		t.Errorf("merge with nothing changed the view: %+v", one.Meta)
	}
	if one := session.MergeViews(session.View{}, sql); one.Meta.FlowName != "old name" || len(one.Messages) != 3 {
		t.Errorf("merge into nothing lost the view: %+v", one.Meta)
	}
}

func TestMergeViews_summaries(t *testing.T) {
	t.Parallel()
	t0 := now.UTC()
	older := session.Summary{Text: "old", Version: 2, UpdatedAt: t0}
	newer := session.Summary{Text: "new", Version: 5, UpdatedAt: t0.Add(time.Hour)}
	cases := map[string]struct {
		a, b session.Summary
		want session.Summary
	}{
		"none":          {session.Summary{}, session.Summary{}, session.Summary{}},
		"only a":        {older, session.Summary{}, older},
		"only b":        {session.Summary{}, newer, session.Summary{Text: "new", Version: 6, UpdatedAt: newer.UpdatedAt}},
		"same text":     {older, session.Summary{Text: "old", Version: 3, UpdatedAt: t0.Add(time.Minute)}, session.Summary{Text: "old", Version: 3, UpdatedAt: t0.Add(time.Minute)}},
		"both, a older": {older, newer, session.Summary{Text: "old\nnew", Version: 6, UpdatedAt: newer.UpdatedAt}},
		"both, b older": {newer, older, session.Summary{Text: "old\nnew", Version: 6, UpdatedAt: newer.UpdatedAt}},
	}
	for name, tc := range cases {
		if got := session.MergeViews(session.View{Summary: tc.a}, session.View{Summary: tc.b}).Summary; got != tc.want {
			t.Errorf("%s: %+v, want %+v", name, got, tc.want)
		}
	}
}

func TestMergeStates_keepsTheMostRecentExchangeIDsOnce(t *testing.T) {
	t.Parallel()
	var a, b []string
	for i := range 50 {
		a = append(a, fmt.Sprintf("a%d", i))
		b = append(b, fmt.Sprintf("b%d", i))
	}
	b = append(b, "a49")
	got := session.MergeStates(session.State{ExchangeIDs: a}, session.State{ExchangeIDs: b}).ExchangeIDs
	if len(got) != session.MaxExchangeIDs || got[len(got)-1] != "b49" || got[0] != "a36" {
		t.Fatalf("%d ids, first %s last %s", len(got), got[0], got[len(got)-1])
	}
}

func fieldsOf(t *testing.T, err error) []string {
	t.Helper()
	var ve *invalid.Error
	if !errors.As(err, &ve) {
		t.Fatalf("not a validation error: %v", err)
	}
	var out []string
	for _, f := range ve.Fields {
		out = append(out, f.Field)
	}
	return out
}

func msg(id, exchange string) session.Message {
	role := conversation.RoleUser
	if strings.HasSuffix(id, "/assistant") {
		role = conversation.RoleAssistant
	}
	return session.Message{ID: id, ExchangeID: exchange, Role: role, Content: id, At: now.UTC()}
}

func turns(n int) []session.Message {
	var out []session.Message
	for i := 1; i <= n; i++ {
		x := fmt.Sprintf("x%d", i)
		out = append(out, msg(x+"/user", x), msg(x+"/assistant", x))
	}
	return out
}

func sameExchange(n int) []session.Message {
	out := make([]session.Message, n)
	for i := range out {
		out[i] = msg(fmt.Sprintf("x/%d", i), "x")
	}
	return out
}

func viewOf(msgs ...session.Message) session.View {
	for i := range msgs {
		msgs[i].Seq = int64(i + 1)
	}
	return session.View{Meta: session.Meta{Ref: ref, CreatedAt: now.UTC(), LastActiveAt: now.UTC(), Held: len(msgs), MessageCount: int64(len(msgs))}, Messages: msgs}
}

func idsOf(msgs []session.Message) []string {
	out := make([]string, len(msgs))
	for i, m := range msgs {
		out[i] = m.ID
	}
	return out
}
