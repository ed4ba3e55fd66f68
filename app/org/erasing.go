package org

import (
	"context"
	"slices"

	"engram/domain/org"
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

// withoutErased drops the items of users being erased and clears the references
// to managers being erased; ids points at an item's user id and manager id.
func withoutErased[T any](items []T, erasing map[string]bool, ids func(*T) (user string, manager *string)) []T {
	out := items[:0:0]
	for _, item := range items {
		user, manager := ids(&item)
		if erasing[user] {
			continue
		}
		if erasing[*manager] {
			*manager = ""
		}
		out = append(out, item)
	}
	return out
}

func memberIDs(m *org.Member) (string, *string) { return m.UserID, &m.ManagerID }

func foundIDs(f *Found) (string, *string) { return f.UserID, &f.ManagerID }

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

// usersAndManagers are the user ids of the items and of their managers.
func usersAndManagers[T any](items []T, ids func(*T) (user string, manager *string)) []string {
	out := make([]string, 0, 2*len(items))
	for _, item := range items {
		user, manager := ids(&item)
		out = append(out, user, *manager)
	}
	return out
}
