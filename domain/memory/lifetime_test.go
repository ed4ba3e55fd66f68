package memory

import (
	"testing"
	"time"
)

func TestLifetime_zeroNeverExpiresAbsentIsTheDefaultConstraintsNever(t *testing.T) {
	t.Parallel()
	policy := Policy{DefaultTTLDays: 180}
	tests := []struct {
		name    string
		in      DraftInput
		policy  Policy
		ttl     int
		expires time.Time
	}{
		{"absent: the default", DraftInput{Type: "fact"}, policy, 180, t0.AddDate(0, 0, 180)},
		{"0: never", DraftInput{Type: "fact", TTLDays: ptr(0)}, policy, 0, time.Time{}},
		{"given: as given", DraftInput{Type: "fact", TTLDays: ptr(7)}, policy, 7, t0.AddDate(0, 0, 7)},
		{"constraint: never by default", DraftInput{Type: "constraint"}, policy, 0, time.Time{}},
		{"constraint: its own default", DraftInput{Type: "constraint"}, Policy{DefaultTTLDays: 180, ConstraintTTLDays: 365}, 365, t0.AddDate(0, 0, 365)},
		{"constraint: as given", DraftInput{Type: "constraint", TTLDays: ptr(3)}, policy, 3, t0.AddDate(0, 0, 3)},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			tt.in.Content = "x"
			m, err := New("id1", scope, MustParseKey("k"), mustDraft(t, tt.in), tt.policy, t0)
			if err != nil {
				t.Fatal(err)
			}
			if m.TTLDays() != tt.ttl || !m.ExpiresAt().Equal(tt.expires) {
				t.Errorf("ttl %d expires %v, want %d and %v", m.TTLDays(), m.ExpiresAt(), tt.ttl, tt.expires)
			}
		})
	}
}

func TestReplace_restartsTheExpiryAndKeepsTheLifetimeWhenNoneIsAsked(t *testing.T) {
	t.Parallel()
	policy := Policy{DefaultTTLDays: 180}
	later := t0.AddDate(0, 0, 100)
	tests := []struct {
		name    string
		first   DraftInput
		again   DraftInput
		ttl     int
		expires time.Time
	}{
		{"default lifetime restarts", DraftInput{Type: "fact"}, DraftInput{Type: "fact"}, 180, later.AddDate(0, 0, 180)},
		{"its own lifetime restarts", DraftInput{Type: "fact", TTLDays: ptr(30)}, DraftInput{Type: "fact"}, 30, later.AddDate(0, 0, 30)},
		{"forever stays forever", DraftInput{Type: "fact", TTLDays: ptr(0)}, DraftInput{Type: "fact"}, 0, time.Time{}},
		{"a new lifetime wins", DraftInput{Type: "fact", TTLDays: ptr(0)}, DraftInput{Type: "fact", TTLDays: ptr(10)}, 10, later.AddDate(0, 0, 10)},
		{"a new type takes its default", DraftInput{Type: "fact"}, DraftInput{Type: "constraint"}, 0, time.Time{}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			tt.first.Content, tt.again.Content = "x", "y"
			m, err := New("id1", scope, MustParseKey("k"), mustDraft(t, tt.first), policy, t0)
			if err != nil {
				t.Fatal(err)
			}
			next, err := m.Replace(mustDraft(t, tt.again), policy, later)
			if err != nil {
				t.Fatal(err)
			}
			if next.TTLDays() != tt.ttl || !next.ExpiresAt().Equal(tt.expires) {
				t.Errorf("ttl %d expires %v, want %d and %v", next.TTLDays(), next.ExpiresAt(), tt.ttl, tt.expires)
			}
		})
	}
}

func TestRenewed_restartsTheExpiryWithoutTouchingTheContent(t *testing.T) {
	t.Parallel()
	m, _ := New("id1", scope, MustParseKey("allergy"), mustDraft(t, DraftInput{Type: "fact", Content: "peanuts", TTLDays: ptr(180)}), Policy{}, t0)
	synced := m.MarkVectorSynced("local-v1", 1, TextHash(m.IndexText()), t0)
	later := t0.AddDate(0, 0, 170)
	src := Source{Channel: ChannelExtraction, MessageID: "m9"}
	next, ok := synced.Renewed(src, later)
	if !ok || !next.ExpiresAt().Equal(later.AddDate(0, 0, 180)) || next.Version() != 2 || next.Source() != src {
		t.Errorf("renewed: ok %v, %+v", ok, next.State())
	}
	if next.Content() != "peanuts" || next.Vector().Status != VectorSynced {
		t.Errorf("a renewal changed the content or dirtied the vector: %+v", next.State())
	}
	if _, ok := next.Renewed(src, later); ok {
		t.Error("renewing twice at one instant changed something")
	}
	forever, _ := New("id2", scope, MustParseKey("rule"), mustDraft(t, DraftInput{Type: "constraint", Content: "用中文回复"}), Policy{DefaultTTLDays: 180}, t0)
	if _, ok := forever.Renewed(src, later); ok {
		t.Error("renewing a memory that never expires changed it")
	}
}

func TestMerged_keepsTheLongerLifeAndThePinAndRestartsTheExpiry(t *testing.T) {
	t.Parallel()
	later := t0.Add(time.Hour)
	tests := []struct {
		name         string
		a, b         State
		ttl          int
		pinned       bool
		expiresAfter int // days after later; -1 for never
	}{
		{"the longer", State{TTLDays: 30}, State{TTLDays: 90}, 90, false, 90},
		{"forever wins", State{TTLDays: 30}, State{TTLDays: 0}, 0, false, -1},
		{"a pin survives", State{TTLDays: 30}, State{TTLDays: 7, Pinned: true}, 30, true, 30},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			got := Merged(tt.a, tt.b, later)
			want := time.Time{}
			if tt.expiresAfter >= 0 {
				want = later.AddDate(0, 0, tt.expiresAfter)
			}
			if got.TTLDays != tt.ttl || got.Pinned != tt.pinned || !got.ExpiresAt.Equal(want) {
				t.Errorf("merged %+v, want ttl %d pinned %v expires %v", got, tt.ttl, tt.pinned, want)
			}
		})
	}
}

func TestRestoreTTLDays_readsTheLifetimeOfOldRowsFromTheirExpiry(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		expires time.Time
		want    int
	}{
		{time.Time{}, 0},
		{t0.AddDate(0, 0, 180), 180},
		{t0.Add(time.Hour), 1},
	} {
		if got := RestoreTTLDays(tc.expires, t0); got != tc.want {
			t.Errorf("RestoreTTLDays(%v) = %d, want %d", tc.expires, got, tc.want)
		}
	}
}

func TestIsStanding_constraintsImportantAndPinned(t *testing.T) {
	t.Parallel()
	pinned := true
	for _, tc := range []struct {
		in   DraftInput
		want bool
	}{
		{DraftInput{Type: "constraint", Importance: ptr(1)}, true},
		{DraftInput{Type: "fact", Importance: ptr(4)}, true},
		{DraftInput{Type: "fact", Importance: ptr(3)}, false},
		{DraftInput{Type: "preference", Importance: ptr(2), Pinned: &pinned}, true},
	} {
		tc.in.Content = "x"
		m, _ := New("id", scope, MustParseKey("k"), mustDraft(t, tc.in), Policy{}, t0)
		if got := m.IsStanding(4); got != tc.want {
			t.Errorf("%+v: IsStanding = %v, want %v", tc.in, got, tc.want)
		}
	}
}

func TestSet_changesPinImportanceAndLifetimeOnly(t *testing.T) {
	t.Parallel()
	m, _ := New("id1", scope, MustParseKey("team"), mustDraft(t, DraftInput{Type: "fact", Content: "payments", TTLDays: ptr(30)}), Policy{}, t0)
	later := t0.Add(time.Hour)
	next, ok := m.Set(Settings{Pinned: ptr(true), Importance: ptr(5), TTLDays: ptr(0)}, tool, later)
	if !ok || !next.Pinned() || next.Importance() != 5 || next.TTLDays() != 0 || !next.ExpiresAt().IsZero() || next.Version() != 2 || next.Content() != "payments" {
		t.Errorf("set: ok %v %+v", ok, next.State())
	}
	if _, ok := next.Set(Settings{Pinned: ptr(true)}, tool, later); ok {
		t.Error("setting what it already is changed it")
	}
	if err := (Settings{TTLDays: ptr(-1)}).Validate(); err == nil {
		t.Error("ttl_days -1 accepted")
	}
}
