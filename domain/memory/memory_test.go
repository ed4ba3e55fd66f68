package memory

import (
	"errors"
	"math"
	"strings"
	"testing"
	"time"

	"engram/domain/invalid"
)

var (
	t0    = time.Date(2026, 11, 30, 10, 0, 0, 0, time.UTC)
	scope = Scope{Tenant: "acme", User: "alice"}
	tool  = Source{Channel: ChannelTool}
)

func ptr[T any](v T) *T { return &v }

func mustDraft(t *testing.T, in DraftInput) Draft {
	t.Helper()
	d, err := ParseDraft(in, tool)
	if err != nil {
		t.Fatalf("ParseDraft: %v", err)
	}
	return d
}

func TestParseDraft_defaults(t *testing.T) {
	t.Parallel()
	d := mustDraft(t, DraftInput{Type: "Fact", Content: "  lives in Wuhan  "})
	if d.Type != TypeFact || d.Content != "lives in Wuhan" || d.Importance != DefaultImportance || d.Confidence != DefaultConfidence || d.TTLDays != 0 {
		t.Errorf("unexpected draft %+v", d)
	}
}

func TestParseDraft_refusesEachBadField(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name  string
		in    DraftInput
		field string
	}{
		{"unknown type", DraftInput{Type: "profile", Content: "x"}, "type"},
		{"blank content", DraftInput{Type: "fact", Content: "   "}, "content"},
		{"1001 characters", DraftInput{Type: "fact", Content: strings.Repeat("记", 1001)}, "content"},
		{"importance 0", DraftInput{Type: "fact", Content: "x", Importance: ptr(0)}, "importance"},
		{"importance 6", DraftInput{Type: "fact", Content: "x", Importance: ptr(6)}, "importance"},
		{"confidence above 1", DraftInput{Type: "fact", Content: "x", Confidence: ptr(1.5)}, "confidence"},
		{"confidence NaN", DraftInput{Type: "fact", Content: "x", Confidence: ptr(math.NaN())}, "confidence"},
		{"ttl above the maximum", DraftInput{Type: "fact", Content: "x", TTLDays: ptr(MaxTTLDays + 1)}, "ttl_days"},
		{"ttl negative", DraftInput{Type: "fact", Content: "x", TTLDays: ptr(-3)}, "ttl_days"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := ParseDraft(tt.in, tool)
			var ve *invalid.Error
			if !errors.As(err, &ve) {
				t.Fatalf("err = %v, want *invalid.Error", err)
			}
			found := false
			for _, f := range ve.Fields {
				found = found || f.Field == tt.field
			}
			if !found {
				t.Errorf("fields %+v do not name %q", ve.Fields, tt.field)
			}
		})
	}
}

func TestParseDraft_countsCharactersNotBytes(t *testing.T) {
	t.Parallel()
	if _, err := ParseDraft(DraftInput{Type: "fact", Content: strings.Repeat("记", 1000)}, tool); err != nil {
		t.Errorf("1000 CJK characters (3000 bytes) refused: %v", err)
	}
}

func TestNew_expiry(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name    string
		ttl     *int
		policy  Policy
		expires time.Time
	}{
		{"default ttl", nil, Policy{DefaultTTLDays: 180}, t0.AddDate(0, 0, 180)},
		{"item ttl wins", ptr(7), Policy{DefaultTTLDays: 180}, t0.AddDate(0, 0, 7)},
		{"no default: never", nil, Policy{}, time.Time{}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			m, err := New("id1", scope, MustParseKey("k"), mustDraft(t, DraftInput{Type: "fact", Content: "x", TTLDays: tt.ttl}), tt.policy, t0)
			if err != nil {
				t.Fatal(err)
			}
			if !m.ExpiresAt().Equal(tt.expires) {
				t.Errorf("expires %v, want %v", m.ExpiresAt(), tt.expires)
			}
			if m.IsExpired(t0) {
				t.Error("expired at creation")
			}
			if !tt.expires.IsZero() && !m.IsExpired(tt.expires) {
				t.Error("not expired at its expiry time")
			}
		})
	}
}

func TestMemory_lifecycle(t *testing.T) {
	t.Parallel()
	m, err := New("id1", scope, MustParseKey("diet"), mustDraft(t, DraftInput{Type: "fact", Content: "vegetarian"}), Policy{}, t0)
	if err != nil {
		t.Fatal(err)
	}
	if m.Version() != 1 || m.Vector().Status != VectorDirty || !m.IsLive(t0) {
		t.Fatalf("new memory: %+v", m.State())
	}
	synced := m.MarkVectorSynced("local-v1", 1, TextHash(m.IndexText()), t0)
	if synced.Version() != 1 || synced.Vector().Status != VectorSynced {
		t.Fatalf("sync changed the version or failed: %+v", synced.State())
	}

	t1 := t0.Add(time.Hour)
	appended, err := synced.Append("no eggs", tool, t1)
	if err != nil {
		t.Fatal(err)
	}
	if appended.Content() != "vegetarian\nno eggs" || appended.Version() != 2 || appended.Vector().Status != VectorDirty || !appended.UpdatedAt().Equal(t1) {
		t.Errorf("append: %+v", appended.State())
	}
	if appended.CreatedAt() != t0 || appended.ID() != "id1" {
		t.Error("append changed identity")
	}

	deleted := appended.Deactivate(tool, t1)
	if deleted.Active() || deleted.IsLive(t1) || deleted.Version() != 3 {
		t.Errorf("deactivate: %+v", deleted.State())
	}

	back := deleted.RevertTo(m.State(), tool, t1)
	if !back.Active() || back.Content() != "vegetarian" || back.Version() != 4 {
		t.Errorf("revert: %+v", back.State())
	}
}

func TestAppend_refusesOverflowAndSaysWhatToDo(t *testing.T) {
	t.Parallel()
	m, _ := New("id1", scope, MustParseKey("k"), mustDraft(t, DraftInput{Type: "fact", Content: strings.Repeat("a", 990)}), Policy{}, t0)
	_, err := m.Append("0123456789", tool, t0)
	var ve *invalid.Error
	if !errors.As(err, &ve) || !strings.Contains(ve.Error(), "memory_save") {
		t.Fatalf("err = %v, want a validation error pointing at memory_save", err)
	}
}

func TestIndexText_seedFormatAndHash(t *testing.T) {
	t.Parallel()
	m, _ := New("id1", scope, MustParseKey("reply.language"), mustDraft(t, DraftInput{Type: "constraint", Content: "用中文回复"}), Policy{}, t0)
	if got, want := m.IndexText(), "[constraint] reply.language: 用中文回复"; got != want {
		t.Errorf("IndexText = %q, want %q", got, want)
	}
	if h := TextHash(m.IndexText()); len(h) != 64 || h == TextHash(m.IndexText()+" ") {
		t.Errorf("hash %q is not a sha256 hex of the text", h)
	}
}

func TestNewEvent_keepsBeforeAndAfter(t *testing.T) {
	t.Parallel()
	m, _ := New("id1", scope, MustParseKey("k"), mustDraft(t, DraftInput{Type: "fact", Content: "a"}), Policy{}, t0)
	next, _ := m.Append("b", tool, t0.Add(time.Minute))
	e := NewEvent("ev1", OpAppend, &m, next)
	if e.Before == nil || e.Before.Content != "a" || e.After.Content != "a\nb" || e.Key != MustParseKey("k") || e.MemoryID != "id1" || !e.At.Equal(t0.Add(time.Minute)) {
		t.Errorf("event %+v", e)
	}
	first := NewEvent("ev0", OpAdd, nil, m)
	if first.Before != nil {
		t.Error("first ADD has a before")
	}
}

func TestNewPurgeEvent_keepsIdentityAndNoContent(t *testing.T) {
	t.Parallel()
	src := Source{Channel: ChannelExtraction, ConversationID: "c1", MessageID: "m1"}
	d, err := ParseDraft(DraftInput{Type: "fact", Content: "allergic to peanuts", TTLDays: ptr(30)}, src)
	if err != nil {
		t.Fatal(err)
	}
	m, _ := New("id1", scope, MustParseKey("allergy"), d, Policy{}, t0)
	at := t0.Add(time.Hour)
	e := NewPurgeEvent("ev9", m, ChannelTool, at)
	purged := PurgedKey(scope, m.Key())
	if e.Op != OpPurge || e.Before != nil || e.ID != "ev9" || e.MemoryID != "id1" || e.Key != purged || e.After.Key != purged || e.Scope != scope || !e.At.Equal(at) {
		t.Fatalf("event %+v", e)
	}
	if strings.Contains(purged.String(), "allergy") || !strings.HasPrefix(purged.String(), "purged.") || len(purged.String()) != 7+64 {
		t.Errorf("purged key %q must not tell the key", purged)
	}
	if PurgedKey(scope, m.Key()) != purged || PurgedKey(Scope{Tenant: "acme", User: "bob"}, m.Key()) == purged {
		t.Error("the purged key is not stable per scope and key")
	}
	a := e.After
	if a.Content != "" || a.Active || !a.ExpiresAt.IsZero() || a.Source != (Source{Channel: ChannelTool}) || a.Vector != (VectorState{}) {
		t.Errorf("after keeps content or a link to the source: %+v", a)
	}
	if a.Type != TypeFact || a.Version != m.Version()+1 || !a.CreatedAt.Equal(t0) || !a.UpdatedAt.Equal(at) || a.ID != m.ID() {
		t.Errorf("after lost its identity: %+v", a)
	}
}

func TestScopeFingerprint_isStableAndSeparatesTenantFromUser(t *testing.T) {
	t.Parallel()
	a := Scope{Tenant: "acme", User: "alice"}.Fingerprint()
	if len(a) != 64 || a != (Scope{Tenant: "acme", User: "alice"}).Fingerprint() {
		t.Fatalf("fingerprint %q is not a stable sha256 hex", a)
	}
	for _, other := range []Scope{{"acme", "bob"}, {"globex", "alice"}, {"acmea", "lice"}, {"acme\x00a", "lice"}} {
		if other.Fingerprint() == a {
			t.Errorf("%+v has alice's fingerprint", other)
		}
	}
}
