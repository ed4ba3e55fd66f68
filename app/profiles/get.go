package profiles

import (
	"context"

	"engram/domain/memory"
	"engram/domain/org"
	"engram/domain/profile"
)

// Get reads a profile on behalf of Actor (X-Acting-User).
type Get struct {
	Scope memory.Scope
	Actor string
}

// View is a profile as its reader sees it.
type View struct {
	Profile profile.Profile
	Stored  bool       // false: built from the org entry, nothing derived yet
	Access  org.Access // how the reader stands to the user
}

// Get returns the profile to the user or a manager above them; a manager's read is
// audited. Anyone else is refused (and audited); a user unknown to the tenant is
// not found.
func (s *Service) Get(ctx context.Context, q Get) (View, error) {
	subj, err := s.authorize(ctx, q.Scope, q.Actor, ActionProfileRead, selfOrManager)
	if err != nil {
		return View{}, err
	}
	return View{Profile: subj.profile, Stored: subj.stored, Access: subj.access}, nil
}
