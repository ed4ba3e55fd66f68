package contextbuild_test

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"engram/adapters/sqlstore"
	"engram/adapters/textanalysis"
	"engram/adapters/ulids"
	"engram/app/contextbuild"
	"engram/domain/conversation"
	"engram/domain/memory"
	"engram/domain/promptctx"
	"engram/domain/session"
	"engram/ports"
	"engram/test/fakeclock"
	"engram/test/teststore"
)

var (
	alice = memory.Scope{Tenant: "acme", User: "alice"}
	t0    = time.Date(2026, 12, 1, 9, 0, 0, 0, time.UTC)
)

// fakeRetriever answers each kind with what a test set, for the scope it was set
// for only, and records the queries.
type fakeRetriever struct {
	mu      sync.Mutex
	found   map[contextbuild.Within]contextbuild.Found
	scope   memory.Scope
	queries []contextbuild.Query
}

func (f *fakeRetriever) Retrieve(_ context.Context, q contextbuild.Query) (contextbuild.Found, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.queries = append(f.queries, q)
	if q.Scope != f.scope {
		return contextbuild.Found{ModeUsed: "auto"}, nil
	}
	return f.found[q.Within], nil
}

// fakeSessions holds one session.
type fakeSessions struct {
	view session.View
}

func (f *fakeSessions) Session(_ context.Context, ref session.Ref, limit int) (session.View, error) {
	if ref != f.view.Meta.Ref {
		return session.View{}, ports.ErrNotFound
	}
	v := f.view
	if limit > 0 && len(v.Messages) > limit {
		v.Messages = v.Messages[len(v.Messages)-limit:]
	}
	return v, nil
}

func (f *fakeSessions) Sessions(_ context.Context, scope memory.Scope, q ports.SessionQuery) ([]session.Meta, error) {
	if f.view.Meta.Ref.Scope != scope || (q.SessionID != "" && q.SessionID != f.view.Meta.Ref.SessionID) {
		return nil, nil
	}
	return []session.Meta{f.view.Meta}, nil
}

// fakeStanding holds alice's standing memories and counts its reads.
type fakeStanding struct {
	mu       sync.Mutex
	memories []memory.Memory
	reads    int
}

func (f *fakeStanding) StandingMemories(_ context.Context, scope memory.Scope, _ int, _ time.Time, limit int) ([]memory.Memory, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.reads++
	if scope != alice {
		return nil, nil
	}
	return f.memories[:min(limit, len(f.memories))], nil
}

type fakeProfile struct{ text string }

func (f fakeProfile) Section(_ context.Context, scope memory.Scope) (string, error) {
	if scope != alice {
		return "", nil
	}
	return f.text, nil
}

// env is the context call over fakes of its sources, the SQLite trace store
// behind a recorder (not running unless a test starts it) and the SQLite erasure
// store as the erasure guard.
type env struct {
	t        *testing.T
	clock    *fakeclock.Clock
	retr     *fakeRetriever
	sessions *fakeSessions
	traces   *sqlstore.TraceStore
	recorder *contextbuild.TraceRecorder
	erasures *sqlstore.ErasureStore
	standing *fakeStanding
	svc      *contextbuild.Service
}

func newEnv(t *testing.T, opts contextbuild.Options) *env {
	t.Helper()
	e := &env{t: t, clock: fakeclock.New(t0), retr: &fakeRetriever{scope: alice, found: map[contextbuild.Within]contextbuild.Found{}},
		sessions: &fakeSessions{}, standing: &fakeStanding{}}
	stores := teststore.New(t)
	e.traces, e.erasures = stores.Traces, stores.Erasures
	e.recorder = contextbuild.NewTraceRecorder(e.traces, contextbuild.RecorderOptions{})
	if opts.MinScore == 0 {
		opts.MinScore = 0.12
	}
	e.svc = contextbuild.New(contextbuild.Deps{
		Retriever: e.retr, Sessions: e.sessions, Profiles: fakeProfile{text: "[用户画像]\n姓名: 李雷 | 职位: 技术主管 | 部门: 研发中心\n擅长领域: 项目管理"},
		Analyzer: textanalysis.New(textanalysis.Options{}), Traces: e.recorder, Reader: e.recorder, Erasures: e.erasures,
		Clock: e.clock, IDs: ulids.New(), Standing: e.standing,
	}, opts)
	return e
}

// runRecorder writes the recorder's traces until the test ends.
func (e *env) runRecorder() {
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { defer close(done); e.recorder.Run(ctx) }()
	e.t.Cleanup(func() { cancel(); <-done })
}

// session sets the one session: its summary and turns (user, assistant, …).
func (e *env) session(id, summary string, turns ...string) {
	ref := session.Ref{Scope: alice, FlowID: "report", SessionID: id}
	v := session.View{Meta: session.Meta{Ref: ref, FlowName: "季度汇报", CreatedAt: t0, LastActiveAt: t0, Held: len(turns)},
		Summary: session.Summary{Text: summary, Version: 1, UpdatedAt: t0}}
	for i, text := range turns {
		role := conversation.RoleUser
		if i%2 == 1 {
			role = conversation.RoleAssistant
		}
		v.Messages = append(v.Messages, session.Message{ID: fmt.Sprintf("x%d/%s", i/2, role), ExchangeID: fmt.Sprintf("x%d", i/2),
			Role: role, Content: text, At: t0.Add(time.Duration(i) * time.Second), Seq: int64(i + 1)})
	}
	e.sessions.view = v
}

// memory makes a live memory of alice.
func (e *env) memory(key, typ, content string) *memory.Memory {
	e.t.Helper()
	m, err := memory.New(ulids.New().New(), alice, memory.MustParseKey(key), memory.Draft{Type: memory.Type(typ), Content: content, Importance: 3, Confidence: 0.9},
		memory.Policy{}, t0.Add(-time.Hour))
	if err != nil {
		e.t.Fatal(err)
	}
	return &m
}

// message makes a past message of alice.
func message(id, conv, role, name, content string, at time.Time) *conversation.Message {
	return &conversation.Message{ID: id, Seq: id, Scope: alice, ConversationID: conv, Role: conversation.Role(role), Name: name,
		Content: content, CreatedAt: at}
}

func (e *env) build(r contextbuild.Request) contextbuild.Result {
	e.t.Helper()
	if r.Scope == (memory.Scope{}) {
		r.Scope = alice
	}
	res, err := e.svc.Build(context.Background(), r)
	if err != nil {
		e.t.Fatalf("build: %v", err)
	}
	return res
}

// checkExplained fails unless the trace explains the result: every injected
// item is a trace item and a kept raw hit, the counts add up, and every other
// raw hit has a reason.
func checkExplained(t *testing.T, res contextbuild.Result) {
	t.Helper()
	tr := res.Trace
	kept := map[string]bool{}
	for _, h := range tr.RawHits {
		switch {
		case h.Kept && h.Reason != "":
			t.Errorf("raw hit %s kept with a reason %q", h.ID, h.Reason)
		case !h.Kept && h.Reason == "":
			t.Errorf("raw hit %s (%s) dropped without a reason", h.ID, h.Section)
		case h.Kept:
			kept[string(h.Section)+"/"+h.ID] = true
		}
	}
	total := 0
	for _, it := range tr.Items {
		if !kept[string(it.Section)+"/"+it.ID] {
			t.Errorf("item %s/%s injected but not a kept raw hit", it.Section, it.ID)
		}
		if it.Snippet == "" || !strings.Contains(res.Prompt, strings.Fields(it.Snippet)[0]) {
			t.Errorf("item %s: snippet %q not in the block", it.ID, it.Snippet)
		}
	}
	for _, n := range tr.SourceCount {
		total += n
	}
	if total != len(tr.Items) || len(kept) != len(tr.Items) {
		t.Errorf("source counts %v, %d items, %d kept hits", tr.SourceCount, len(tr.Items), len(kept))
	}
	if n := len(res.Recent) + len(res.Standing) + len(res.Memories) + len(res.Episodes) + len(res.External) + boolInt(res.Summary != "") +
		strings.Count(res.Profile, "\n"); n != len(tr.Items) {
		t.Errorf("the sections hold %d items, the trace %d", n, len(tr.Items))
	}
	if tr.InjectedChars != res.InjectedChars || len([]rune(res.Prompt)) != res.InjectedChars {
		t.Errorf("injected %d, trace %d, block %d", res.InjectedChars, tr.InjectedChars, len([]rune(res.Prompt)))
	}
}

func boolInt(b bool) int {
	if b {
		return 1
	}
	return 0
}

func reasonOf(tr promptctx.Trace, section promptctx.Section, id string) (string, bool) {
	for _, h := range tr.RawHits {
		if h.Section == section && h.ID == id {
			return h.Reason, h.Kept
		}
	}
	return "absent", false
}

func ptr[T any](v T) *T { return &v }

func newAnalyzer() *textanalysis.Analyzer { return textanalysis.New(textanalysis.Options{}) }

func newIDs() ports.IDs { return ulids.New() }
