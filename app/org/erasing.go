package org

import (
	"context"
	"slices"

	"engram/domain/memory"
	"engram/domain/org"
	"engram/ports"
)

// The erasure guard of the organisation use cases: reads are checked after they
// read (a read that began before the erasure was requested cannot return after
// it), writes before they write — the store refuses them again in its own
// transaction.

// erasingOf returns which of these users of the tenant are being erased.
func (s *Service) erasingOf(ctx context.Context, tenant string, users []string) (map[string]bool, error) {
	out := map[string]bool{}
	users = slices.DeleteFunc(slices.Clone(users), func(u string) bool { return u == "" }) // no manager
	if s.erasures == nil || len(users) == 0 {
		return out, nil
	}
	jobs, err := s.erasures.ErasingUsers(ctx, tenant, slices.Compact(slices.Sorted(slices.Values(users))))
	if err != nil {
		return nil, err
	}
	for u, job := range jobs {
		if job != "" {
			out[u] = true
		}
	}
	return out, nil
}

// refuseErasing is the *ports.ErasingError of a user being erased.
func (s *Service) refuseErasing(ctx context.Context, scope memory.Scope) error {
	if s.erasures == nil {
		return nil
	}
	job, err := s.erasures.Erasing(ctx, scope)
	if err != nil {
		return err
	}
	if job != "" {
		return &ports.ErasingError{JobID: job}
	}
	return nil
}

// withoutErased drops the members being erased and the references to managers
// being erased.
func withoutErased(members []org.Member, erasing map[string]bool) []org.Member {
	out := members[:0:0]
	for _, m := range members {
		if erasing[m.UserID] {
			continue
		}
		if erasing[m.ManagerID] {
			m.ManagerID = ""
		}
		out = append(out, m)
	}
	return out
}

// chainBelowErased cuts a manager chain at the first manager being erased: the
// managers above were reached through them.
func chainBelowErased(chain []string, erasing map[string]bool) []string {
	for i, m := range chain {
		if erasing[m] {
			return chain[:i]
		}
	}
	return chain
}

// membersAndManagers are the user ids of members and of their managers.
func membersAndManagers(members []org.Member) []string {
	ids := make([]string, 0, 2*len(members))
	for _, m := range members {
		ids = append(ids, m.UserID)
		if m.ManagerID != "" {
			ids = append(ids, m.ManagerID)
		}
	}
	return ids
}
