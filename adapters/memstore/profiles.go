package memstore

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"time"

	"engram/domain/memory"
	"engram/domain/profile"
	"engram/ports"
)

// ProfileStore is an in-memory ports.ProfileStore and ports.ProfileRefreshQueue.
type ProfileStore struct {
	mu       sync.Mutex
	profiles map[memory.Scope]profile.State
	marks    map[memory.Scope]*refreshMark
}

type refreshMark struct {
	mark       profile.RefreshMark
	generation int64
	claimedBy  string
	claimUntil time.Time
}

var (
	_ ports.ProfileStore        = (*ProfileStore)(nil)
	_ ports.ProfileRefreshQueue = (*ProfileStore)(nil)
)

// NewProfileStore returns an empty store.
func NewProfileStore() *ProfileStore {
	return &ProfileStore{profiles: map[memory.Scope]profile.State{}, marks: map[memory.Scope]*refreshMark{}}
}

// Profile returns the user's profile.
func (s *ProfileStore) Profile(_ context.Context, scope memory.Scope) (profile.Profile, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	st, ok := s.profiles[scope]
	if !ok {
		return profile.Profile{}, fmt.Errorf("memstore: get profile: %w", ports.ErrNotFound)
	}
	return profile.Restore(st), nil
}

// ProfilesOf returns the stored profiles of these users.
func (s *ProfileStore) ProfilesOf(_ context.Context, tenant string, users []string) (map[string]profile.Profile, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := map[string]profile.Profile{}
	for _, u := range users {
		if st, ok := s.profiles[memory.Scope{Tenant: tenant, User: u}]; ok {
			out[u] = profile.Restore(st)
		}
	}
	return out, nil
}

// UpdateProfile runs fn on the current profile and stores its result.
func (s *ProfileStore) UpdateProfile(ctx context.Context, scope memory.Scope,
	fn func(current *profile.Profile) (profile.Profile, error),
) (profile.Profile, error) {
	if err := ctx.Err(); err != nil {
		return profile.Profile{}, fmt.Errorf("memstore: update profile: %w: %w", ports.ErrUnavailable, err)
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	var cur *profile.Profile
	if st, ok := s.profiles[scope]; ok {
		p := profile.Restore(st)
		cur = &p
	}
	next, err := fn(cur)
	if err != nil {
		return profile.Profile{}, err
	}
	if err := checkProfileChange(scope, cur, next); err != nil {
		return profile.Profile{}, err
	}
	st := next.State().MapTimes(normTime)
	s.profiles[scope] = st
	return profile.Restore(st), nil
}

// checkProfileChange holds what the SQL store's write holds: the profile is the
// scope's, and its version is above the stored one.
func checkProfileChange(scope memory.Scope, cur *profile.Profile, next profile.Profile) error {
	if next.Scope() != scope {
		return errors.New("memstore: update profile: the new profile is of another user")
	}
	var stored int64
	if cur != nil {
		stored = cur.Version()
	}
	if next.Version() <= stored {
		return fmt.Errorf("memstore: update profile: version %d after %d; a stored change advances the version", next.Version(), stored)
	}
	return nil
}

// MarkProfileStale records a change, debounced.
func (s *ProfileStore) MarkProfileStale(_ context.Context, scope memory.Scope, now time.Time, debounce, maxWait time.Duration) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	m := s.marks[scope]
	if m == nil {
		m = &refreshMark{}
		s.marks[scope] = m
		m.mark = profile.NextMark(nil, normTime(now), debounce, maxWait)
	} else {
		m.mark = profile.NextMark(&m.mark, normTime(now), debounce, maxWait)
	}
	m.mark.FirstMarked, m.mark.Due = normTime(m.mark.FirstMarked), normTime(m.mark.Due)
	m.generation++
	return nil
}

// ClaimStaleProfiles claims due marks nobody holds, earliest due first.
func (s *ProfileStore) ClaimStaleProfiles(_ context.Context, worker string, now time.Time, lease time.Duration, limit int) ([]ports.StaleProfile, error) {
	now = normTime(now)
	s.mu.Lock()
	defer s.mu.Unlock()
	var due []memory.Scope
	for scope, m := range s.marks {
		if !m.mark.Due.After(now) && (m.claimUntil.IsZero() || !m.claimUntil.After(now)) {
			due = append(due, scope)
		}
	}
	slices.SortFunc(due, func(a, b memory.Scope) int {
		if c := s.marks[a].mark.Due.Compare(s.marks[b].mark.Due); c != 0 {
			return c
		}
		return strings.Compare(a.Tenant+"\x00"+a.User, b.Tenant+"\x00"+b.User)
	})
	var out []ports.StaleProfile
	for _, scope := range due[:min(len(due), max(limit, 0))] {
		m := s.marks[scope]
		m.claimedBy, m.claimUntil = worker, normTime(now.Add(lease))
		out = append(out, ports.StaleProfile{Scope: scope, Generation: m.generation})
	}
	return out, nil
}

// FinishProfileRefresh ends a claim, removing the mark unless it was marked again.
func (s *ProfileStore) FinishProfileRefresh(_ context.Context, worker string, sp ports.StaleProfile) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	m := s.marks[sp.Scope]
	if m == nil || m.claimedBy != worker {
		return nil
	}
	if m.generation == sp.Generation {
		delete(s.marks, sp.Scope)
		return nil
	}
	m.claimedBy, m.claimUntil = "", time.Time{}
	return nil
}

// PurgeUser removes the user's profile and pending refresh.
func (s *ProfileStore) PurgeUser(_ context.Context, scope memory.Scope) (map[string]int64, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	counts := map[string]int64{"profiles": 0, "profile_refreshes": 0}
	if _, ok := s.profiles[scope]; ok {
		delete(s.profiles, scope)
		counts["profiles"] = 1
	}
	if _, ok := s.marks[scope]; ok {
		delete(s.marks, scope)
		counts["profile_refreshes"] = 1
	}
	return counts, nil
}
