package profiles_test

import (
	"context"
	"fmt"
	"testing"
	"time"

	"engram/adapters/pinyin"
	"engram/adapters/sqlstore"
	"engram/adapters/textanalysis"
	"engram/adapters/ulids"
	"engram/app/memories"
	apporg "engram/app/org"
	"engram/app/profiles"
	"engram/domain/conversation"
	"engram/domain/memory"
	"engram/domain/org"
	"engram/ports"
	"engram/test/fakeclock"
	"engram/test/teststore"
)

type fixture struct {
	svc       *profiles.Service
	org       *apporg.Service
	clock     *fakeclock.Clock
	stores    *teststore.Stores
	profiles  *sqlstore.ProfileStore
	graph     *sqlstore.OrgStore
	activity  *sqlstore.ActivityStore
	reports   *sqlstore.ReportStore
	audit     *sqlstore.ReportStore // the audit log is kept beside the reports
	memories  *sqlstore.MemoryStore
	messages  *sqlstore.MessageStore
	memoryAPI *memories.Service
	deps      profiles.Deps
	opts      profiles.Options
}

// with rebuilds the service with changed dependencies.
func (f *fixture) with(change func(*profiles.Deps)) *profiles.Service {
	deps := f.deps
	change(&deps)
	return profiles.New(deps, f.opts)
}

var (
	t0  = time.Date(2026, 12, 1, 9, 0, 0, 0, time.UTC)
	dev = memory.Scope{Tenant: "acme", User: "dev"}
)

func newFixture(t testing.TB, writer ports.ReportWriter, opts profiles.Options) *fixture {
	t.Helper()
	stores := teststore.New(t)
	f := &fixture{
		clock: fakeclock.New(t0), stores: stores, profiles: stores.Profiles, graph: stores.Org,
		activity: stores.Activity, reports: stores.Reports, audit: stores.Reports,
		memories: stores.Memories, messages: stores.Messages,
	}
	ids := ulids.New()
	f.deps = profiles.Deps{
		Profiles: f.profiles, Refreshes: f.profiles, Activity: f.activity, Org: f.graph, Reports: f.reports, Audit: f.audit,
		Memories: f.memories, Messages: f.messages, Analyzer: textanalysis.New(textanalysis.Options{}), Romanizer: pinyin.New(),
		Writer: writer, Clock: f.clock, IDs: ids,
		Purgers: []profiles.UserPurger{f.profiles, f.activity, f.reports, f.graph},
	}
	f.opts = opts
	f.svc = profiles.New(f.deps, opts)
	f.org = apporg.New(apporg.Deps{Graph: f.graph, Profiles: f.profiles, Romanizer: pinyin.New(), Clock: f.clock})
	f.memoryAPI = memories.New(f.memories, f.clock, ids, memory.Policy{})
	return f
}

func (f *fixture) put(t *testing.T, user, name, position, manager string) {
	t.Helper()
	if _, _, err := f.org.Put(context.Background(), apporg.Put{Scope: memory.Scope{Tenant: "acme", User: user},
		Member: org.MemberInput{DisplayName: name, Department: "研发中心", Position: position, ManagerID: manager}}); err != nil {
		t.Fatal(err)
	}
}

func (f *fixture) say(t *testing.T, scope memory.Scope, at time.Time, convo, text string) {
	t.Helper()
	seq := fmt.Sprintf("%s-%d", scope.User, at.UnixNano())
	m, err := conversation.New(scope, conversation.Input{ConversationID: convo, MessageID: seq, Role: "user", Content: text, CreatedAt: at}, seq, f.clock.Now(), 0)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := f.messages.Ingest(context.Background(), scope, []conversation.Message{m}); err != nil {
		t.Fatal(err)
	}
}

func (f *fixture) remember(t testing.TB, scope memory.Scope, key, typ, content string) {
	t.Helper()
	imp := 4
	if _, err := f.memoryAPI.Save(context.Background(), memories.Save{Scope: scope, Key: key,
		Draft: memory.DraftInput{Type: typ, Content: content, Importance: &imp}}); err != nil {
		t.Fatal(err)
	}
}
