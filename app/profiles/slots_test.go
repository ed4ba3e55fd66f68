package profiles_test

import (
	"context"
	"slices"
	"testing"

	"engram/app/profiles"
	"engram/domain/memory"
	"engram/domain/profile"
	"engram/ports"
)

func scopeOf(user string) memory.Scope { return memory.Scope{Tenant: "acme", User: user} }

func TestApplySlots_setTheProfileWithTheirSourceAndNeverAMemory(t *testing.T) {
	t.Parallel()
	f := newFixture(t, nil, profiles.Options{})
	ctx := context.Background()
	src := profile.Source{Channel: profile.ChannelExtraction, ConversationID: "c1", MessageID: "m7", At: t0}
	p, changed, err := f.svc.ApplySlots(ctx, dev, []profile.SlotUpdate{
		{Slot: profile.SlotNickname, Value: "Captain", Source: src},
		{Slot: profile.SlotAIName, Value: "Jarvis", Source: src},
		{Slot: profile.SlotEmoji, Value: "🚀", Source: src},
	})
	if err != nil {
		t.Fatal(err)
	}
	st := p.State()
	if st.Declared.Nickname != "Captain" || st.Sources[profile.FieldNickname] != src || !slices.Equal(changed, []profile.Field{profile.FieldNickname, profile.FieldAIName, profile.FieldEmoji}) {
		t.Errorf("profile %+v changed %v", st, changed)
	}
	page, err := f.memories.List(ctx, dev, ports.MemoryQuery{Limit: 10, IncludeInactive: true})
	if err != nil || len(page.Items) != 0 {
		t.Errorf("identity slots reached long-term memory: %v %v", page.Items, err)
	}
	// The nickname is a name the user is found by.
	found, err := f.org.Find(ctx, "acme", "captain", 10)
	if err != nil || len(found) != 1 || found[0].UserID != "dev" || found[0].InOrg {
		t.Errorf("found %+v %v", found, err)
	}
	// Saying it again changes nothing; clearing it removes the name.
	if _, changed, _ := f.svc.ApplySlots(ctx, dev, []profile.SlotUpdate{{Slot: profile.SlotNickname, Value: "Captain", Source: src}}); len(changed) != 0 {
		t.Errorf("repeat changed %v", changed)
	}
	if _, _, err := f.svc.ApplySlots(ctx, dev, []profile.SlotUpdate{{Slot: profile.SlotNickname, Value: "", Source: src}}); err != nil {
		t.Fatal(err)
	}
	if found, _ := f.org.Find(ctx, "acme", "captain", 10); len(found) != 0 {
		t.Errorf("a cleared nickname still finds %v", found)
	}
	section, err := f.svc.Section(ctx, dev)
	if err != nil || section != "[用户画像]\n助手名: Jarvis | 🚀" {
		t.Errorf("section %q %v", section, err)
	}
	if s, err := f.svc.Section(ctx, scopeOf("nobody")); s != "" || err != nil {
		t.Errorf("unknown user's section %q %v", s, err)
	}
}

func TestPurgeUser_removesProfileActivityReportsAndOrgEntryButKeepsTheAudit(t *testing.T) {
	t.Parallel()
	f := newFixture(t, nil, profiles.Options{})
	orgWithReport(t, f)
	ctx := context.Background()
	if _, err := f.svc.RequestReport(ctx, profiles.RequestReport{Scope: dev, Actor: "lead"}); err != nil {
		t.Fatal(err)
	}
	if err := f.svc.MarkStale(ctx, dev); err != nil {
		t.Fatal(err)
	}
	counts, err := f.svc.PurgeUser(ctx, dev)
	if err != nil {
		t.Fatal(err)
	}
	for name, want := range map[string]int64{"profiles": 1, "profile_refreshes": 1, "activity_events": 3, "profile_reports": 1, "org_members": 1} {
		if counts[name] != want {
			t.Errorf("%s: purged %d, want %d (all: %v)", name, counts[name], want, counts)
		}
	}
	if _, err := f.svc.Get(ctx, profiles.Get{Scope: dev, Actor: "lead"}); err == nil {
		t.Error("the erased user's profile is still readable")
	}
	if found, _ := f.org.Find(ctx, "acme", "王小明", 10); len(found) != 0 {
		t.Errorf("the erased user is still found by name: %v", found)
	}
	// The entries stay, the user's id in them replaced by the user's fingerprint.
	if entries, _ := f.audit.Audit(ctx, ports.AuditQuery{Tenant: "acme", TargetUser: dev.Fingerprint(), Limit: 10}); len(entries) == 0 {
		t.Error("the audit entries went with the user")
	}
}
