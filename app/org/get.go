package org

import (
	"context"
	"errors"
	"strings"

	"engram/domain/invalid"
	"engram/domain/memory"
	"engram/domain/org"
	"engram/ports"
)

// Listing bounds.
const (
	DefaultListLimit = 100
	MaxListLimit     = 1000
)

// Placed is a member with the managers above them, direct manager first.
type Placed struct {
	Member   org.Member
	Managers []string
}

// Get returns the user's org entry and manager chain; a user being erased has
// none, and the chain stops below a manager being erased.
func (s *Service) Get(ctx context.Context, scope memory.Scope) (Placed, error) {
	m, err := s.graph.Member(ctx, scope.Tenant, scope.User)
	if errors.Is(err, ports.ErrNotFound) {
		return Placed{}, ports.NotFound("org member", scope.User)
	}
	if err != nil {
		return Placed{}, err
	}
	chain, err := s.graph.ManagerChain(ctx, scope.Tenant, scope.User)
	if err != nil {
		return Placed{}, err
	}
	erasing, err := s.erasingOf(ctx, scope.Tenant, append([]string{scope.User, m.ManagerID}, chain...))
	if err != nil {
		return Placed{}, err
	}
	if erasing[scope.User] {
		return Placed{}, ports.NotFound("org member", scope.User)
	}
	if erasing[m.ManagerID] {
		m.ManagerID = ""
	}
	return Placed{Member: m, Managers: chainBelowErased(chain, erasing)}, nil
}

// List pages through the tenant's members by user id; next is "" on the last page.
// A page may hold fewer members than the limit when some of them are being
// erased.
func (s *Service) List(ctx context.Context, tenant, cursor string, limit int) (members []org.Member, next string, err error) {
	if limit == 0 {
		limit = DefaultListLimit
	}
	if limit < 1 || limit > MaxListLimit {
		return nil, "", invalid.FieldValue("limit", limit, "must be between 1 and %d", MaxListLimit)
	}
	page, err := s.graph.ListMembers(ctx, tenant, strings.TrimSpace(cursor), limit+1)
	if err != nil {
		return nil, "", err
	}
	if len(page) > limit {
		page, next = page[:limit], page[limit-1].UserID
	}
	erasing, err := s.erasingOf(ctx, tenant, usersAndManagers(page, memberIDs))
	if err != nil {
		return nil, "", err
	}
	return withoutErased(page, erasing, memberIDs), next, nil
}
