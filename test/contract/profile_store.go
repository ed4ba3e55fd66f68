package contract

import (
	"context"
	"errors"
	"fmt"
	"reflect"
	"slices"
	"sync"
	"testing"
	"time"

	"engram/domain/memory"
	"engram/domain/profile"
	"engram/ports"
)

// userPurger is what erasure asks of every store of user data.
type userPurger interface {
	PurgeUser(ctx context.Context, scope memory.Scope) (map[string]int64, error)
}

func mustPurger(t *testing.T, store any) userPurger {
	t.Helper()
	p, ok := store.(userPurger)
	if !ok {
		t.Fatalf("%T has no PurgeUser(ctx, scope) (map[string]int64, error): erasure cannot remove its data", store)
	}
	return p
}

var profTime = time.Date(2026, 12, 1, 9, 30, 0, 123456789, time.FixedZone("CST", 8*3600))

// fullProfile is a profile with every field set, as a PATCH and a derivation make it.
func fullProfile(t *testing.T, scope memory.Scope) profile.Profile {
	t.Helper()
	p, _, err := profile.New(scope, profTime).Apply(profile.Patch{
		DisplayName: profile.Value("王小明"), Department: profile.Value("研发中心"), Position: profile.Value("工程师"),
		RoleTags: profile.Value([]string{"engineer", "mentor"}), WorkStyleTags: profile.Value([]string{"注重细节"}),
		PreferredModel: profile.Value("gpt-4o"), Language: profile.Value("zh-CN"), Tone: profile.Value("简洁"),
		TimeZone: profile.Value("Asia/Shanghai"), Nickname: profile.Value("小明"), PreferredName: profile.Value("明"),
		AIName: profile.Value("小助"), Emoji: profile.Value("🚀"),
	}, profile.Source{Channel: profile.ChannelAPI, At: profTime})
	if err != nil {
		t.Fatal(err)
	}
	p, _, err = p.ApplySlots([]profile.SlotUpdate{{Slot: profile.SlotNickname, Value: "Captain",
		Source: profile.Source{Channel: profile.ChannelExtraction, ConversationID: "c1", MessageID: "m1", At: profTime.Add(time.Second)}}})
	if err != nil {
		t.Fatal(err)
	}
	p, _ = p.WithDerived(profile.Derived{
		Conversations: 12, WorkflowsUsed: 35,
		FavouriteWorkflows: []profile.WorkflowCount{{FlowID: "assign", FlowName: "任务分配", Count: 23}, {FlowID: "weekly", Count: 12}},
		WorkHours:          []profile.HourRange{{From: 9, To: 12}, {From: 22, To: 2}},
		WorkStyle:          []profile.StyleTag{profile.StyleFastTurnaround},
		Topics:             []profile.TopicCount{{Topic: "任务管理", Count: 15}, {Topic: "report", Count: 3}},
		Expertise:          []string{"项目管理", "SQL"},
		Tasks:              profile.TaskStats{Assigned: 10, Created: 3, Completed: 9, AvgCompletionHours: 5.25, CompletionRate: 0.9},
		LastConversationAt: profTime.Add(-time.Hour),
	}, profTime.Add(time.Minute))
	return p
}

// normalized is what a store gives back: times in UTC to the microsecond.
func normalized(st profile.State) profile.State {
	return st.MapTimes(func(t time.Time) time.Time { return t.UTC().Truncate(time.Microsecond) })
}

func create(ctx context.Context, store ports.ProfileStore, p profile.Profile) (profile.Profile, error) {
	return store.UpdateProfile(ctx, p.Scope(), func(cur *profile.Profile) (profile.Profile, error) {
		if cur != nil {
			return profile.Profile{}, errors.New("already stored")
		}
		return p, nil
	})
}

// RunProfileStore is the contract every ports.ProfileStore adapter must pass. open
// returns an empty store; each case opens its own.
//
// Beyond the port's comments: every field round-trips (times in UTC to the
// microsecond), a stored change must advance the version (else it is refused and
// nothing is written), concurrent updates of one profile lose
// nothing, and PurgeUser removes the profile.
func RunProfileStore(t *testing.T, open func(t *testing.T) ports.ProfileStore) {
	t.Helper()
	scope := memory.Scope{Tenant: "acme", User: "u-1"}

	t.Run("absent profile is not found", func(t *testing.T) {
		t.Parallel()
		store, ctx := open(t), memTestContext(t)
		if _, err := store.Profile(ctx, scope); !errors.Is(err, ports.ErrNotFound) {
			t.Errorf("err = %v, want ErrNotFound", err)
		}
		got, err := store.ProfilesOf(ctx, "acme", []string{"u-1", "u-2"})
		if err != nil || len(got) != 0 {
			t.Errorf("ProfilesOf = %v, %v", got, err)
		}
	})

	t.Run("every field round-trips", func(t *testing.T) {
		t.Parallel()
		store, ctx := open(t), memTestContext(t)
		p := fullProfile(t, scope)
		stored, err := create(ctx, store, p)
		if err != nil {
			t.Fatal(err)
		}
		want := normalized(p.State())
		if got := stored.State(); !reflect.DeepEqual(got, want) {
			t.Errorf("returned\n %+v\nwant\n %+v", got, want)
		}
		got, err := store.Profile(ctx, scope)
		if err != nil || !reflect.DeepEqual(got.State(), want) {
			t.Errorf("read back\n %+v (err %v)\nwant\n %+v", got.State(), err, want)
		}
		many, err := store.ProfilesOf(ctx, "acme", []string{"u-1", "nobody"})
		if err != nil || len(many) != 1 || !reflect.DeepEqual(many["u-1"].State(), want) {
			t.Errorf("ProfilesOf = %v, %v", many, err)
		}
	})

	t.Run("update sees the stored profile; a callback error writes nothing", func(t *testing.T) {
		t.Parallel()
		store, ctx := open(t), memTestContext(t)
		if _, err := create(ctx, store, fullProfile(t, scope)); err != nil {
			t.Fatal(err)
		}
		_, err := store.UpdateProfile(ctx, scope, func(cur *profile.Profile) (profile.Profile, error) {
			return profile.Profile{}, fmt.Errorf("nothing to do: %w", ports.ErrNoChange)
		})
		if !errors.Is(err, ports.ErrNoChange) {
			t.Fatalf("err = %v, want the callback's ErrNoChange", err)
		}
		updated, err := store.UpdateProfile(ctx, scope, func(cur *profile.Profile) (profile.Profile, error) {
			if cur == nil || cur.State().Declared.DisplayName != "王小明" {
				return profile.Profile{}, fmt.Errorf("current = %v", cur)
			}
			next, _, err := cur.Apply(profile.Patch{Position: profile.Value("技术主管"), Emoji: profile.Value("")},
				profile.Source{Channel: profile.ChannelAPI, At: profTime.Add(time.Hour)})
			return next, err
		})
		if err != nil {
			t.Fatal(err)
		}
		got, _ := store.Profile(ctx, scope)
		if d := got.State().Declared; d.Position != "技术主管" || d.Emoji != "" || got.Version() != updated.Version() || got.Version() != 4 {
			t.Errorf("after update: %+v version %d", d, got.Version())
		}
	})

	t.Run("a change that does not advance the version is refused", func(t *testing.T) {
		t.Parallel()
		store, ctx := open(t), memTestContext(t)
		stored, err := create(ctx, store, fullProfile(t, scope))
		if err != nil {
			t.Fatal(err)
		}
		_, err = store.UpdateProfile(ctx, scope, func(cur *profile.Profile) (profile.Profile, error) { return *cur, nil })
		if err == nil {
			t.Fatal("storing the same version again was accepted")
		}
		other := memory.Scope{Tenant: "acme", User: "u-2"}
		_, err = store.UpdateProfile(ctx, other, func(*profile.Profile) (profile.Profile, error) {
			return profile.New(other, profTime), nil // version 0: nothing changed
		})
		if err == nil {
			t.Fatal("an unchanged new profile (version 0) was stored")
		}
		got, _ := store.Profile(ctx, scope)
		if got.Version() != stored.Version() {
			t.Errorf("version %d, want %d", got.Version(), stored.Version())
		}
		if _, err := store.Profile(ctx, other); !errors.Is(err, ports.ErrNotFound) {
			t.Errorf("refused profile was stored: %v", err)
		}
	})

	t.Run("concurrent updates of one profile lose nothing", func(t *testing.T) {
		t.Parallel()
		store, ctx := open(t), memTestContext(t)
		const writers = 8
		var wg sync.WaitGroup
		errs := make(chan error, writers)
		for i := range writers {
			wg.Add(1)
			go func() {
				defer wg.Done()
				tag := fmt.Sprintf("tag-%d", i)
				for attempt := 0; ; attempt++ {
					_, err := store.UpdateProfile(ctx, scope, func(cur *profile.Profile) (profile.Profile, error) {
						base := profile.New(scope, profTime)
						if cur != nil {
							base = *cur
						}
						tags := append(base.State().Declared.RoleTags, tag)
						next, _, err := base.Apply(profile.Patch{RoleTags: profile.Value(tags)}, profile.Source{Channel: profile.ChannelAPI, At: profTime})
						return next, err
					})
					if errors.Is(err, ports.ErrConflict) && attempt < 20 {
						continue
					}
					errs <- err
					return
				}
			}()
		}
		wg.Wait()
		close(errs)
		for err := range errs {
			if err != nil {
				t.Fatal(err)
			}
		}
		got, err := store.Profile(ctx, scope)
		if err != nil {
			t.Fatal(err)
		}
		tags := got.State().Declared.RoleTags
		slices.Sort(tags)
		if len(tags) != writers || got.Version() != writers {
			t.Errorf("tags %v version %d; want all %d writes", tags, got.Version(), writers)
		}
	})

	t.Run("users and tenants are separate; purge removes one profile", func(t *testing.T) {
		t.Parallel()
		store, ctx := open(t), memTestContext(t)
		scopes := []memory.Scope{scope, {Tenant: "globex", User: "u-1"}, {Tenant: "acme", User: "u-2"}}
		for _, sc := range scopes {
			p, _, _ := profile.New(sc, profTime).Apply(profile.Patch{DisplayName: profile.Value(sc.Tenant + "/" + sc.User)}, profile.Source{At: profTime})
			if _, err := create(ctx, store, p); err != nil {
				t.Fatal(err)
			}
		}
		for _, sc := range scopes {
			got, err := store.Profile(ctx, sc)
			if err != nil || got.State().Declared.DisplayName != sc.Tenant+"/"+sc.User {
				t.Errorf("%v: %+v %v", sc, got.State().Declared, err)
			}
		}
		counts, err := mustPurger(t, store).PurgeUser(ctx, scope)
		if err != nil || counts["profiles"] != 1 {
			t.Fatalf("purge: %v %v", counts, err)
		}
		if _, err := store.Profile(ctx, scope); !errors.Is(err, ports.ErrNotFound) {
			t.Errorf("purged profile: %v", err)
		}
		for _, sc := range scopes[1:] {
			if _, err := store.Profile(ctx, sc); err != nil {
				t.Errorf("purge of %v removed %v: %v", scope, sc, err)
			}
		}
		if counts, _ := mustPurger(t, store).PurgeUser(ctx, scope); counts["profiles"] != 0 {
			t.Errorf("second purge: %v", counts)
		}
	})
}

// RunProfileRefreshQueue is the contract of ports.ProfileRefreshQueue adapters.
// open returns an empty queue; each case opens its own.
func RunProfileRefreshQueue(t *testing.T, open func(t *testing.T) ports.ProfileRefreshQueue) {
	t.Helper()
	now := time.Date(2026, 12, 1, 10, 0, 0, 0, time.UTC)
	debounce, maxWait, lease := time.Minute, 10*time.Minute, 5*time.Minute
	a := memory.Scope{Tenant: "acme", User: "a"}
	b := memory.Scope{Tenant: "acme", User: "b"}

	claimFor := func(lease time.Duration) func(*testing.T, ports.ProfileRefreshQueue, context.Context, string, time.Time) []memory.Scope {
		return func(t *testing.T, q ports.ProfileRefreshQueue, ctx context.Context, worker string, at time.Time) []memory.Scope {
			t.Helper()
			got, err := q.ClaimStaleProfiles(ctx, worker, at, lease, 10)
			if err != nil {
				t.Fatal(err)
			}
			var out []memory.Scope
			for _, s := range got {
				out = append(out, s.Scope)
			}
			return out
		}
	}
	claim := claimFor(lease)

	t.Run("a mark is due after the debounce, pushed back by later marks, never past max wait", func(t *testing.T) {
		t.Parallel()
		q, ctx := open(t), memTestContext(t)
		lease := time.Hour // b stays claimed while the chatty user is watched
		claim := claimFor(lease)
		must(t, q.MarkProfileStale(ctx, a, now, debounce, maxWait))
		must(t, q.MarkProfileStale(ctx, b, now.Add(10*time.Second), debounce, maxWait))
		if got := claim(t, q, ctx, "w1", now.Add(59*time.Second)); len(got) != 0 {
			t.Fatalf("claimed before the debounce: %v", got)
		}
		must(t, q.MarkProfileStale(ctx, a, now.Add(50*time.Second), debounce, maxWait)) // pushes a to 1m50s
		if got := claim(t, q, ctx, "w1", now.Add(80*time.Second)); !slices.Equal(got, []memory.Scope{b}) {
			t.Fatalf("at 1m20s claimed %v, want only b", got)
		}
		claimed, err := q.ClaimStaleProfiles(ctx, "w1", now.Add(110*time.Second), lease, 10)
		if err != nil || len(claimed) != 1 || claimed[0].Scope != a {
			t.Fatalf("at 1m50s claimed %v (%v), want a", claimed, err)
		}
		must(t, q.FinishProfileRefresh(ctx, "w1", claimed[0]))
		claimed, _ = q.ClaimStaleProfiles(ctx, "w1", now.Add(110*time.Second), lease, 10)
		if len(claimed) != 0 {
			t.Fatalf("a finished refresh was claimed again: %v", claimed)
		}
		c := memory.Scope{Tenant: "acme", User: "chatty"}
		for s := 0; s < 11*60; s += 30 { // a mark every 30 s for 11 minutes
			must(t, q.MarkProfileStale(ctx, c, now.Add(time.Duration(s)*time.Second), debounce, maxWait))
			if got := claim(t, q, ctx, "w2", now.Add(time.Duration(s)*time.Second)); len(got) > 0 {
				if s < 10*60 {
					t.Fatalf("claimed %v at %ds, before max wait", got, s)
				}
				return
			}
		}
		t.Fatal("a user marked every 30 s was never due: max wait does not hold")
	})

	t.Run("a claim holds for its lease; finishing removes the mark unless it was marked again", func(t *testing.T) {
		t.Parallel()
		q, ctx := open(t), memTestContext(t)
		must(t, q.MarkProfileStale(ctx, a, now, debounce, maxWait))
		must(t, q.MarkProfileStale(ctx, b, now, debounce, maxWait))
		due := now.Add(debounce)
		claimed, err := q.ClaimStaleProfiles(ctx, "w1", due, lease, 10)
		if err != nil || len(claimed) != 2 {
			t.Fatalf("claimed %v %v", claimed, err)
		}
		if got := claim(t, q, ctx, "w2", due.Add(time.Minute)); len(got) != 0 {
			t.Fatalf("w2 claimed %v during w1's lease", got)
		}
		var ca, cb ports.StaleProfile
		for _, c := range claimed {
			if c.Scope == a {
				ca = c
			} else {
				cb = c
			}
		}
		must(t, q.MarkProfileStale(ctx, b, due.Add(time.Second), debounce, maxWait)) // b changes during the run
		must(t, q.FinishProfileRefresh(ctx, "w2", ca))                               // not w2's: left alone
		must(t, q.FinishProfileRefresh(ctx, "w1", ca))
		must(t, q.FinishProfileRefresh(ctx, "w1", cb))
		got := claim(t, q, ctx, "w2", due.Add(2*debounce))
		if !slices.Equal(got, []memory.Scope{b}) {
			t.Fatalf("after finishing: claimed %v, want b (marked again during its run)", got)
		}
	})

	t.Run("a lapsed lease returns the user to another worker", func(t *testing.T) {
		t.Parallel()
		q, ctx := open(t), memTestContext(t)
		must(t, q.MarkProfileStale(ctx, a, now, debounce, maxWait))
		if got := claim(t, q, ctx, "w1", now.Add(debounce)); len(got) != 1 {
			t.Fatalf("w1 claimed %v", got)
		}
		if got := claim(t, q, ctx, "w2", now.Add(debounce+lease)); !slices.Equal(got, []memory.Scope{a}) {
			t.Fatalf("after the lease w2 claimed %v", got)
		}
		purged, err := mustPurger(t, q).PurgeUser(ctx, a)
		if err != nil || purged["profile_refreshes"] != 1 {
			t.Fatalf("purge: %v %v", purged, err)
		}
		if got := claim(t, q, ctx, "w3", now.Add(time.Hour)); len(got) != 0 {
			t.Fatalf("purged mark claimed: %v", got)
		}
	})

	t.Run("concurrent claims hand each user to one worker", func(t *testing.T) {
		t.Parallel()
		q, ctx := open(t), memTestContext(t)
		const users = 20
		for i := range users {
			must(t, q.MarkProfileStale(ctx, memory.Scope{Tenant: "acme", User: fmt.Sprintf("u%02d", i)}, now, debounce, maxWait))
		}
		var mu sync.Mutex
		seen := map[memory.Scope]int{}
		var wg sync.WaitGroup
		for w := range 4 {
			wg.Add(1)
			go func() {
				defer wg.Done()
				got, err := q.ClaimStaleProfiles(ctx, fmt.Sprintf("w%d", w), now.Add(debounce), lease, 8)
				if err != nil {
					t.Error(err)
					return
				}
				mu.Lock()
				for _, s := range got {
					seen[s.Scope]++
				}
				mu.Unlock()
			}()
		}
		wg.Wait()
		for s, n := range seen {
			if n != 1 {
				t.Errorf("%v claimed %d times", s, n)
			}
		}
		if len(seen) != users {
			t.Errorf("%d users claimed, want %d", len(seen), users)
		}
	})
}

func must(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}
