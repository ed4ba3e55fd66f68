package org

import (
	"context"
	"unicode/utf8"

	"engram/domain/invalid"
	"engram/domain/org"
)

// Name resolution bounds.
const (
	DefaultFindLimit = 20
	MaxFindLimit     = 100
	MaxNameQueryLen  = 100
)

// Found is a user a name query resolved to.
type Found struct {
	UserID      string
	DisplayName string
	Department  string
	Position    string
	ManagerID   string
	Nickname    string
	InOrg       bool      // false: known from the profile only
	Match       org.Match // the key it was found by and how strong
}

// Find resolves a name to users of the tenant, best matches first: a whole
// display name or nickname, then a given name or one word of a name, then the
// pinyin of a Chinese name ("Xiao Ming" for 小明) and 小王/老王. Case, spaces,
// hyphens and full-width letters do not matter. Users being erased are not found.
func (s *Service) Find(ctx context.Context, tenant, name string, limit int) ([]Found, error) {
	if limit == 0 {
		limit = DefaultFindLimit
	}
	var errs []error
	if limit < 1 || limit > MaxFindLimit {
		errs = append(errs, invalid.FieldValue("limit", limit, "must be between 1 and %d", MaxFindLimit))
	}
	if n := utf8.RuneCountInString(name); n > MaxNameQueryLen {
		errs = append(errs, invalid.Field("name", "must be at most %d characters, got %d", MaxNameQueryLen, n))
	}
	query := org.QueryKeys(name, s.syllable())
	if len(query) == 0 {
		errs = append(errs, invalid.FieldValue("name", name, "must contain a letter or digit of a name"))
	}
	if err := invalid.Join(errs...); err != nil {
		return nil, err
	}
	keys := make([]string, len(query))
	for i, q := range query {
		keys[i] = q.Key
	}
	hits, err := s.graph.FindByNameKeys(ctx, tenant, keys, limit)
	if err != nil {
		return nil, err
	}
	found, err := s.describe(ctx, tenant, org.BestMatches(query, hits))
	if err != nil {
		return nil, err
	}
	erasing, err := s.erasingOf(ctx, tenant, usersAndManagers(found, foundIDs))
	if err != nil {
		return nil, err
	}
	return withoutErased(found, erasing, foundIDs), nil
}

// describe fills in who the matched users are: their org entry, else what their
// profile says.
func (s *Service) describe(ctx context.Context, tenant string, matches []org.Match) ([]Found, error) {
	users := make([]string, len(matches))
	for i, m := range matches {
		users[i] = m.UserID
	}
	members, err := s.graph.MembersOf(ctx, tenant, users)
	if err != nil {
		return nil, err
	}
	profiles, err := s.profiles.ProfilesOf(ctx, tenant, users)
	if err != nil {
		return nil, err
	}
	out := make([]Found, 0, len(matches))
	for _, m := range matches {
		f := Found{UserID: m.UserID, Match: m}
		if p, ok := profiles[m.UserID]; ok {
			d := p.State().Declared
			f.DisplayName, f.Department, f.Position, f.Nickname = d.DisplayName, d.Department, d.Position, d.Nickname
		}
		if mem, ok := members[m.UserID]; ok {
			f.InOrg = true
			f.DisplayName, f.Department, f.Position, f.ManagerID = mem.DisplayName, mem.Department, mem.Position, mem.ManagerID
		}
		out = append(out, f)
	}
	return out, nil
}
