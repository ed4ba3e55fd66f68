package profiles

import (
	"context"
	"errors"
	"fmt"

	"engram/domain/memory"
	"engram/domain/org"
	"engram/domain/profile"
	"engram/domain/secret"
	"engram/ports"
)

// Patch declares fields of a profile (JSON merge patch).
type Patch struct {
	Scope memory.Scope
	// Actor is the X-Acting-User when the caller sent one: it must then be the
	// user or a manager above them. Empty: the tenant's backend itself.
	Actor string
	Patch profile.Patch
}

// Patch applies declared fields, creating the profile when it is the first, and
// re-indexes the user's names when a name changed. Fields it does not name stay
// as they are; an empty patch is refused (profile.ErrEmptyPatch).
func (s *Service) Patch(ctx context.Context, cmd Patch) (profile.Profile, error) {
	if cmd.Patch.IsEmpty() {
		return profile.Profile{}, profile.ErrEmptyPatch
	}
	if cmd.Actor != "" {
		if err := s.mayDeclare(ctx, cmd.Scope, cmd.Actor); err != nil {
			return profile.Profile{}, err
		}
	}
	if s.opts.Secrets.Screens() {
		cmd.Patch = cmd.Patch.MapText(secret.Mask)
	}
	src := profile.Source{Channel: profile.ChannelAPI, At: s.deps.Clock.Now()}
	return s.update(ctx, cmd.Scope, func(p profile.Profile) (profile.Profile, []profile.Field, error) {
		return p.Apply(cmd.Patch, src)
	})
}

// mayDeclare lets the user and the managers above them change a profile.
func (s *Service) mayDeclare(ctx context.Context, scope memory.Scope, actor string) error {
	if err := memory.ValidateUserID("X-Acting-User", actor); err != nil {
		return err
	}
	if actor == scope.User {
		return nil
	}
	chain, err := s.deps.Org.ManagerChain(ctx, scope.Tenant, scope.User)
	if err != nil {
		return err
	}
	if !org.Decide(actor, scope.User, chain).Allowed() {
		return fmt.Errorf("the profile of %q may be changed only by the user and the managers above them; %q is neither: %w",
			scope.User, actor, ports.ErrForbidden)
	}
	return nil
}

// update applies change to the stored profile (a new one when there is none) in
// the store's transaction; nothing is written when nothing changed. Names are
// re-indexed after a change of a name field.
func (s *Service) update(ctx context.Context, scope memory.Scope,
	change func(profile.Profile) (profile.Profile, []profile.Field, error),
) (profile.Profile, error) {
	var changed []profile.Field
	var unchanged profile.Profile
	stored, err := s.deps.Profiles.UpdateProfile(ctx, scope, func(cur *profile.Profile) (profile.Profile, error) {
		base := profile.New(scope, s.deps.Clock.Now())
		if cur != nil {
			base = *cur
		}
		next, fields, err := change(base)
		if err != nil {
			return profile.Profile{}, err
		}
		if len(fields) == 0 {
			unchanged = base
			return profile.Profile{}, ports.ErrNoChange
		}
		changed = fields
		return next, nil
	})
	if errors.Is(err, ports.ErrNoChange) {
		return unchanged, nil
	}
	if err != nil {
		return profile.Profile{}, err
	}
	if namesChanged(changed) {
		if err := s.indexNames(ctx, stored); err != nil {
			return profile.Profile{}, err
		}
	}
	return stored, nil
}

func namesChanged(fields []profile.Field) bool {
	for _, f := range fields {
		switch f {
		case profile.FieldDisplayName, profile.FieldNickname, profile.FieldPreferredName:
			return true
		}
	}
	return false
}

// indexNames stores the keys the profile's names are found by: the display name
// split into surname and given name (or words), nickname and preferred name whole.
func (s *Service) indexNames(ctx context.Context, p profile.Profile) error {
	d := p.State().Declared
	var full, nicks []string
	if d.DisplayName != "" {
		full = append(full, d.DisplayName)
	}
	for _, n := range []string{d.Nickname, d.PreferredName} {
		if n != "" {
			nicks = append(nicks, n)
		}
	}
	return s.deps.Org.SetNameKeys(ctx, p.Scope(), ports.NameSourceProfile, org.NameKeys(full, nicks, s.syllable()))
}

// syllable is the romaniser's, or none.
func (s *Service) syllable() org.Syllable {
	if s.deps.Romanizer == nil {
		return nil
	}
	return s.deps.Romanizer.Syllable
}
