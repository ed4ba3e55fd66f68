package extraction

import (
	"context"
	"fmt"

	"engram/domain/candidate"
	"engram/domain/conversation"
	"engram/domain/memory"
	"engram/domain/profile"
)

// ProfileSlots applies identity slots said in a conversation to the user's
// profile (app/profiles.Service.ApplySlots): each update with its source, a later
// update of a slot winning, nothing written when the profile already says so. A
// user being erased is refused with a *ports.ErasingError, as every other write.
type ProfileSlots interface {
	ApplySlots(ctx context.Context, scope memory.Scope, updates []profile.SlotUpdate) (profile.Profile, []profile.Field, error)
}

// route is the step after the screen: identity-slot candidates (nickname,
// preferred name, AI name, emoji, language, tone) are applied to the profile and
// leave the run (candidate.Route decides, this applies); the rest go on as memory
// candidates. Without Deps.Profiles a slot candidate is dropped as profile_slot.
// Either way nothing of a slot reaches long-term memory.
//
// The slots are applied before the memory stages, so a run that fails later is
// retried as a whole and applies them again, which changes nothing the second time.
func (p *Pipeline) route(ctx context.Context, kept []candidate.Candidate, triggers []conversation.Message, rep *Report) ([]candidate.Candidate, error) {
	now, conv := p.deps.Clock.Now(), triggers[0].ConversationID
	r := candidate.Route(kept, p.deps.Profiles != nil, func(c candidate.Candidate) profile.Source {
		return profile.Source{Channel: profile.ChannelExtraction, ConversationID: conv, MessageID: sourceMessage(c, triggers), At: now}
	})
	for _, reason := range r.Dropped {
		rep.drop(string(reason))
	}
	// What a message gave now that the slots are placed: a message whose only
	// candidate was a dropped slot gave nothing.
	clear(rep.keptFrom)
	for _, c := range r.Memories {
		rep.keptFrom[sourceMessage(c, triggers)] = true
	}
	if len(r.Slots) == 0 {
		return r.Memories, nil
	}
	if _, _, err := p.deps.Profiles.ApplySlots(ctx, triggers[0].Scope, r.Slots); err != nil {
		return nil, fmt.Errorf("apply identity slots to the profile: %w", err)
	}
	rep.RoutedToProfile += len(r.Slots)
	for _, u := range r.Slots {
		rep.keptFrom[u.Source.MessageID] = true
		rep.routedFrom[u.Source.MessageID] = true
	}
	return r.Memories, nil
}
