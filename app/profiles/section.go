package profiles

import (
	"context"
	"errors"

	"engram/domain/memory"
	"engram/domain/profile"
	"engram/ports"
)

// Section is the user's 用户画像 block for a prompt (the format of docs/CONTEXT.md, in English
// when the profile's language is English), or "" when nothing is known of them.
// It is the context call's profile section; the user is the one the agent
// serves, so no access check or audit applies. Nor does the erasure guard: the
// context call asks it once, after all of its reads, and answers an empty context
// for a user being erased.
func (s *Service) Section(ctx context.Context, scope memory.Scope) (string, error) {
	p, err := s.deps.Profiles.Profile(ctx, scope)
	if errors.Is(err, ports.ErrNotFound) {
		return "", nil
	}
	if err != nil {
		return "", err
	}
	return profile.Format(p.State()), nil
}
