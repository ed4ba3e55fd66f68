package org

import (
	"context"
	"errors"

	"engram/domain/memory"
	"engram/domain/org"
	"engram/domain/profile"
	"engram/ports"
)

// Put is a user's place in the organisation, as a client puts it.
type Put struct {
	Scope  memory.Scope
	Member org.MemberInput
}

// Put stores the member (insert or replace) with the keys their display name is
// found by; a manager that would close a cycle is refused (checked in the store's
// transaction). Display name, department and position are then mirrored into the
// user's profile (source org), so the profile and its prompt block say what the
// organisation says. created reports a new org entry. A user being erased is
// refused with a *ports.ErasingError.
func (s *Service) Put(ctx context.Context, cmd Put) (org.Member, bool, error) {
	m, err := org.NewMember(cmd.Scope.User, cmd.Member, s.clock.Now())
	if err != nil {
		return org.Member{}, false, err
	}
	if err := ports.RefuseErasing(ctx, s.erasures, cmd.Scope); err != nil {
		return org.Member{}, false, err
	}
	keys := org.NameKeys([]string{m.DisplayName}, nil, s.syllable())
	stored, created, err := s.graph.PutMember(ctx, cmd.Scope.Tenant, m, keys)
	if err != nil {
		return org.Member{}, false, err
	}
	if err := s.mirror(ctx, cmd.Scope, stored); err != nil {
		return org.Member{}, false, err
	}
	return stored, created, nil
}

// mirror writes the org fields into the profile. A PUT repeated after a failure
// here mirrors again, so the two cannot stay apart.
func (s *Service) mirror(ctx context.Context, scope memory.Scope, m org.Member) error {
	patch := profile.Patch{
		DisplayName: profile.Value(m.DisplayName),
		Department:  profile.Value(m.Department),
		Position:    profile.Value(m.Position),
	}
	src := profile.Source{Channel: profile.ChannelOrg, At: m.UpdatedAt}
	_, err := s.profiles.UpdateProfile(ctx, scope, func(cur *profile.Profile) (profile.Profile, error) {
		base := profile.New(scope, s.clock.Now())
		if cur != nil {
			base = *cur
		}
		next, changed, err := base.Apply(patch, src)
		if err != nil {
			return profile.Profile{}, err
		}
		if len(changed) == 0 {
			return profile.Profile{}, ports.ErrNoChange
		}
		return next, nil
	})
	if errors.Is(err, ports.ErrNoChange) {
		return nil
	}
	return err
}
