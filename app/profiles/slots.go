package profiles

import (
	"context"

	"engram/domain/memory"
	"engram/domain/profile"
)

// ApplySlots sets identity slots a user said in a conversation ("Please call me
// Captain from now on"): each update is stored with its source (channel
// extraction, the conversation and message), a later update of a slot wins, and
// nothing reaches long-term memory. It is what extraction calls for candidates
// that are profile fields; it returns the profile and the fields that changed
// (none when the profile already said so).
func (s *Service) ApplySlots(ctx context.Context, scope memory.Scope, updates []profile.SlotUpdate) (profile.Profile, []profile.Field, error) {
	var changed []profile.Field
	p, err := s.update(ctx, scope, func(p profile.Profile) (profile.Profile, []profile.Field, error) {
		next, fields, err := p.ApplySlots(updates)
		changed = fields
		return next, fields, err
	})
	if err != nil {
		return profile.Profile{}, nil, err
	}
	return p, changed, nil
}
