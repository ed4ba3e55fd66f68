package profiles_test

import (
	"context"
	"errors"
	"slices"
	"strings"
	"testing"
	"time"

	"engram/app/profiles"
	"engram/domain/memory"
	"engram/domain/profile"
	"engram/ports"
)

func TestRefresh_derivesFromConversationsMemoriesAndActivity(t *testing.T) {
	t.Parallel()
	f := newFixture(t, nil, profiles.Options{})
	ctx := context.Background()

	// Nothing known of the user: no profile is made.
	if err := f.svc.Refresh(ctx, dev); err != nil {
		t.Fatal(err)
	}
	if _, err := f.profiles.Profile(ctx, dev); !errors.Is(err, ports.ErrNotFound) {
		t.Fatalf("a profile was made of nothing: %v", err)
	}

	if _, err := f.svc.Patch(ctx, profiles.Patch{Scope: dev, Patch: profile.Patch{TimeZone: profile.Value("Asia/Shanghai"), Language: profile.Value("en")}}); err != nil {
		t.Fatal(err)
	}
	shanghai, _ := time.LoadLocation("Asia/Shanghai")
	for i, hh := range []int{9, 9, 10, 10, 11, 15} {
		at := time.Date(2026, 11, 28+i%3, hh, 30, 0, 0, shanghai)
		f.say(t, dev, at, []string{"c1", "c2"}[i%2], "Please review the quarterly budget report with me")
	}
	f.remember(t, dev, "work.skills", "fact", "Expert in financial modelling")
	f.remember(t, dev, "health.allergy", "fact", "Allergic to budget peanuts")
	for i, kind := range []string{"task_assigned", "task_assigned", "task_completed"} {
		d := 5.0
		in := profile.ActivityInput{EventID: string(rune('a' + i)), Kind: kind, At: t0.Add(-time.Hour)}
		if kind == "task_completed" {
			in.DurationH = &d
		}
		if _, _, err := f.svc.RecordActivity(ctx, profiles.RecordActivity{Scope: dev, Event: in}); err != nil {
			t.Fatal(err)
		}
	}

	if err := f.svc.Refresh(ctx, dev); err != nil {
		t.Fatal(err)
	}
	p, err := f.profiles.Profile(ctx, dev)
	if err != nil {
		t.Fatal(err)
	}
	st := p.State()
	d := st.Derived
	if d.Conversations != 2 || d.Tasks != (profile.TaskStats{Assigned: 2, Completed: 1, AvgCompletionHours: 5, CompletionRate: 0.5}) {
		t.Errorf("derived %+v", d)
	}
	if !slices.Equal(d.WorkHours, []profile.HourRange{{From: 9, To: 12}}) {
		t.Errorf("work hours %v, want 09-12 in Shanghai", d.WorkHours)
	}
	if !slices.Equal(d.Expertise, []string{"financial modelling"}) {
		t.Errorf("expertise %v", d.Expertise)
	}
	var topics []string
	for _, tc := range d.Topics {
		topics = append(topics, tc.Topic)
	}
	if !slices.Contains(topics, "budget") || !slices.Contains(topics, "quarterly") || slices.Contains(topics, "peanuts") {
		t.Errorf("topics %v", topics)
	}
	if st.Declared.TimeZone != "Asia/Shanghai" || st.Declared.Language != "en" {
		t.Errorf("a refresh changed declared fields: %+v", st.Declared)
	}
	if !strings.Contains(profile.Format(st), "Usual work hours: 09:00-12:00") {
		t.Errorf("format:\n%s", profile.Format(st))
	}

	// Nothing new: a second refresh stores nothing.
	version := p.Version()
	f.clock.Advance(time.Hour)
	if err := f.svc.Refresh(ctx, dev); err != nil {
		t.Fatal(err)
	}
	if again, _ := f.profiles.Profile(ctx, dev); again.Version() != version {
		t.Errorf("an unchanged refresh wrote version %d after %d", again.Version(), version)
	}
}

func TestRefresher_debouncesAndCoalescesMarks(t *testing.T) {
	t.Parallel()
	f := newFixture(t, nil, profiles.Options{RefreshDebounce: time.Minute, RefreshMaxWait: 5 * time.Minute})
	ctx := context.Background()
	r := profiles.NewRefresher(f.svc, profiles.RefresherOptions{Worker: "w"})
	post := func(id string) {
		t.Helper()
		if _, _, err := f.svc.RecordActivity(ctx, profiles.RecordActivity{Scope: dev,
			Event: profile.ActivityInput{EventID: id, Kind: "task_created", At: f.clock.Now()}}); err != nil {
			t.Fatal(err)
		}
	}
	post("e1")
	f.clock.Advance(40 * time.Second)
	post("e2") // pushes the refresh to 1m40s
	f.clock.Advance(40 * time.Second)
	if n, err := r.Tick(ctx); n != 0 || err != nil {
		t.Fatalf("ran %d refreshes inside the debounce (%v)", n, err)
	}
	if _, err := f.profiles.Profile(ctx, dev); !errors.Is(err, ports.ErrNotFound) {
		t.Fatal("the profile was derived before the debounce")
	}
	f.clock.Advance(30 * time.Second)
	if n, err := r.Tick(ctx); n != 1 || err != nil {
		t.Fatalf("ran %d refreshes after the debounce (%v), want one for both events", n, err)
	}
	p, err := f.profiles.Profile(ctx, dev)
	if err != nil || p.State().Derived.Tasks.Created != 2 {
		t.Fatalf("profile %+v %v", p.State().Derived, err)
	}
	if n, _ := r.Tick(ctx); n != 0 {
		t.Errorf("the refresh ran again without a change: %d", n)
	}
	// A mark from the extraction side (a processed conversation) is picked up too.
	f.say(t, dev, f.clock.Now(), "c9", "hello there")
	if err := f.svc.MarkStale(ctx, dev); err != nil {
		t.Fatal(err)
	}
	f.clock.Advance(2 * time.Minute)
	if n, _ := r.Tick(ctx); n != 1 {
		t.Fatalf("ran %d refreshes after a conversation", n)
	}
	if p, _ := f.profiles.Profile(ctx, dev); p.State().Derived.Conversations != 1 {
		t.Errorf("conversations %d", p.State().Derived.Conversations)
	}
}

// failingTallies makes refreshes fail until it is healed.
type failingTallies struct {
	ports.ActivityStore
	fail bool
}

func (s *failingTallies) ActivityTallies(ctx context.Context, sc memory.Scope) ([]profile.ActivityTally, error) {
	if s.fail {
		return nil, ports.ErrUnavailable
	}
	return s.ActivityStore.ActivityTallies(ctx, sc)
}

func TestRefresher_aFailedRefreshKeepsItsMarkAndRunsAfterTheLease(t *testing.T) {
	t.Parallel()
	f := newFixture(t, nil, profiles.Options{RefreshDebounce: time.Minute})
	ctx := context.Background()
	failing := &failingTallies{ActivityStore: f.activity, fail: true}
	svc := f.with(func(d *profiles.Deps) { d.Activity = failing })
	r := profiles.NewRefresher(svc, profiles.RefresherOptions{Worker: "w", Lease: 5 * time.Minute})
	if _, _, err := svc.RecordActivity(ctx, profiles.RecordActivity{Scope: dev,
		Event: profile.ActivityInput{EventID: "e1", Kind: "task_assigned", At: t0}}); err != nil {
		t.Fatal(err)
	}
	f.clock.Advance(2 * time.Minute)
	if n, err := r.Tick(ctx); n != 0 || err != nil {
		t.Fatalf("a failing refresh counted as done: %d %v", n, err)
	}
	failing.fail = false
	f.clock.Advance(time.Minute)
	if n, _ := r.Tick(ctx); n != 0 {
		t.Fatal("the failed refresh was retried inside its lease")
	}
	f.clock.Advance(5 * time.Minute)
	if n, err := r.Tick(ctx); n != 1 || err != nil {
		t.Fatalf("after the lease: %d refreshes (%v)", n, err)
	}
	if p, err := f.profiles.Profile(ctx, dev); err != nil || p.State().Derived.Tasks.Assigned != 1 {
		t.Errorf("profile %+v %v", p.State().Derived.Tasks, err)
	}
}
