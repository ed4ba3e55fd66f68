package memstore

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"sync"

	"engram/domain/memory"
	"engram/domain/org"
	"engram/ports"
)

// OrgStore is an in-memory ports.OrgStore.
type OrgStore struct {
	guard   ports.ErasureGuard // nil: no erasures
	mu      sync.Mutex
	members map[memory.Scope]org.Member
	keys    map[memory.Scope]map[string][]org.NameKey // by source
}

// GuardErasures makes the store refuse to put members being erased, as the SQL
// store does. Call it once, before the store is used.
func (s *OrgStore) GuardErasures(g ports.ErasureGuard) { s.guard = g }

var _ ports.OrgStore = (*OrgStore)(nil)

// NewOrgStore returns an empty store.
func NewOrgStore() *OrgStore {
	return &OrgStore{members: map[memory.Scope]org.Member{}, keys: map[memory.Scope]map[string][]org.NameKey{}}
}

// PutMember stores a member after the erasure and cycle checks, all under one
// lock (the SQL store's per-tenant serialisation).
func (s *OrgStore) PutMember(ctx context.Context, tenant string, m org.Member, keys []org.NameKey) (org.Member, bool, error) {
	if err := ctx.Err(); err != nil {
		return org.Member{}, false, fmt.Errorf("memstore: put member: %w: %w", ports.ErrUnavailable, err)
	}
	scope := memory.Scope{Tenant: tenant, User: m.UserID}
	s.mu.Lock()
	defer s.mu.Unlock()
	if err := guardWrite(ctx, s.guard, scope); err != nil {
		return org.Member{}, false, err
	}
	if err := org.CheckManager(m.UserID, m.ManagerID, s.chain(tenant, m.ManagerID)); err != nil {
		return org.Member{}, false, err
	}
	m.CreatedAt, m.UpdatedAt = normTime(m.CreatedAt), normTime(m.UpdatedAt)
	prev, existed := s.members[scope]
	if existed {
		m.CreatedAt = prev.CreatedAt
	}
	s.members[scope] = m
	s.setKeys(scope, ports.NameSourceOrg, keys)
	return m, !existed, nil
}

// Member returns one member.
func (s *OrgStore) Member(_ context.Context, tenant, user string) (org.Member, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	m, ok := s.members[memory.Scope{Tenant: tenant, User: user}]
	if !ok {
		return org.Member{}, fmt.Errorf("memstore: get member: %w", ports.ErrNotFound)
	}
	return m, nil
}

// MembersOf returns the org entries of these users.
func (s *OrgStore) MembersOf(_ context.Context, tenant string, users []string) (map[string]org.Member, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := map[string]org.Member{}
	for _, u := range users {
		if m, ok := s.members[memory.Scope{Tenant: tenant, User: u}]; ok {
			out[u] = m
		}
	}
	return out, nil
}

// ListMembers pages through the tenant's members by user id.
func (s *OrgStore) ListMembers(_ context.Context, tenant, afterUser string, limit int) ([]org.Member, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	var out []org.Member
	for scope, m := range s.members {
		if scope.Tenant == tenant && scope.User > afterUser {
			out = append(out, m)
		}
	}
	slices.SortFunc(out, func(a, b org.Member) int { return strings.Compare(a.UserID, b.UserID) })
	return out[:min(len(out), max(limit, 0))], nil
}

// ManagerChain follows the managers up from user.
func (s *OrgStore) ManagerChain(_ context.Context, tenant, user string) ([]string, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	m, ok := s.members[memory.Scope{Tenant: tenant, User: user}]
	if !ok || m.ManagerID == "" {
		return nil, nil
	}
	return append([]string{m.ManagerID}, s.chain(tenant, m.ManagerID)...), nil
}

// chain is the managers above user (not user itself), direct first, cut at the
// depth limit or where it loops back on itself.
func (s *OrgStore) chain(tenant, user string) []string {
	var out []string
	for cur := user; cur != "" && len(out) < org.MaxChainDepth; {
		m, ok := s.members[memory.Scope{Tenant: tenant, User: cur}]
		if !ok || m.ManagerID == "" || slices.Contains(out, m.ManagerID) || m.ManagerID == user {
			break
		}
		out = append(out, m.ManagerID)
		cur = m.ManagerID
	}
	return out
}

// SetNameKeys replaces the user's keys of one source.
func (s *OrgStore) SetNameKeys(_ context.Context, scope memory.Scope, source string, keys []org.NameKey) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.setKeys(scope, source, keys)
	return nil
}

func (s *OrgStore) setKeys(scope memory.Scope, source string, keys []org.NameKey) {
	bySource := s.keys[scope]
	if bySource == nil {
		bySource = map[string][]org.NameKey{}
		s.keys[scope] = bySource
	}
	if len(keys) == 0 {
		delete(bySource, source)
		return
	}
	bySource[source] = slices.Clone(keys)
}

// FindByNameKeys returns the stored keys equal to any of keys, for at most limit
// users, strongest first.
func (s *OrgStore) FindByNameKeys(_ context.Context, tenant string, keys []string, limit int) ([]org.KeyHit, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	var hits []org.KeyHit
	for scope, bySource := range s.keys {
		if scope.Tenant != tenant {
			continue
		}
		for _, ks := range bySource {
			for _, k := range ks {
				if slices.Contains(keys, k.Key) {
					hits = append(hits, org.KeyHit{UserID: scope.User, Key: k.Key, Strength: k.Strength})
				}
			}
		}
	}
	return org.TopHits(hits, limit), nil
}

// PurgeUser removes the user's org entry and name keys, and detaches the users
// they managed (their manager_id is cleared: the manager no longer exists).
func (s *OrgStore) PurgeUser(_ context.Context, scope memory.Scope) (map[string]int64, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	counts := map[string]int64{"org_members": 0, "org_name_keys": 0, "org_reports_detached": 0}
	if _, ok := s.members[scope]; ok {
		delete(s.members, scope)
		counts["org_members"] = 1
	}
	for _, ks := range s.keys[scope] {
		counts["org_name_keys"] += int64(len(ks))
	}
	delete(s.keys, scope)
	for sc, m := range s.members {
		if sc.Tenant == scope.Tenant && m.ManagerID == scope.User {
			m.ManagerID = ""
			s.members[sc] = m
			counts["org_reports_detached"]++
		}
	}
	return counts, nil
}
