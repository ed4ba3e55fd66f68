package extraction

import (
	"context"
	"errors"
	"slices"
	"strings"
	"time"

	"engram/domain/candidate"
	"engram/domain/conversation"
	"engram/domain/memory"
	"engram/ports"
)

// Reasons a refined candidate is not written.
const (
	ReasonRefinedAway    = candidate.ReasonRefinedAway    // stage 2 dropped it
	ReasonOverWriteLimit = candidate.ReasonOverWriteLimit // past its message's LONG_TERM_MEMORY_MAX_WRITE_ITEMS: deferred
)

// upsert is stage 3, the same for every extractor: the domain plans the writes
// (candidate.UpsertPolicy.PlanWrites: target keys, screened again — a refiner may
// have rewritten a key or the content, instruction-like text included —, key reuse,
// the write limit),
// each is applied through MemoryStore.Update, which writes nothing when the store
// already says it (so a second run over the same message, a retry after a crash,
// writes nothing), then the domain plans the merges of redundant copies
// (PlanMerges) from what the writes left live, and they are applied: a DELETE
// event on the copy, a MERGE event on the survivor. Every event has channel
// extraction and the source conversation and message.
func (p *Pipeline) upsert(ctx context.Context, triggers []conversation.Message, proposed []candidate.Candidate,
	decisions []candidate.Decision, n candidate.Neighbourhood, rep *Report,
) error {
	scope := triggers[0].Scope
	policy := p.policy()
	// Each decision is counted against the message it came from (the write limit is
	// per message), and each message learns what came of its candidates.
	for i := range decisions {
		decisions[i].Candidate.SourceMessageID = sourceMessage(decisions[i].Candidate, triggers)
		if decisions[i].Verdict == candidate.VerdictDrop {
			rep.outcomeOf(decisions[i].Candidate.SourceMessageID).known++
		}
	}
	plan := policy.PlanWrites(decisions, n, p.deps.Clock.Now())
	for _, reason := range plan.Dropped {
		rep.drop(reason)
	}
	for _, i := range plan.Deferred {
		rep.Deferred++
		rep.outcomeOf(decisions[i].Candidate.SourceMessageID).deferred++
	}
	live := map[memory.Key]candidate.Stored{}
	for j, m := range n.Existing {
		if m.IsLive(p.deps.Clock.Now()) {
			live[m.Key()] = candidate.Stored{Memory: m, Writer: -1, Existing: j}
		}
	}
	var written []memory.Key
	for _, w := range plan.Writes {
		if w.Reused {
			rep.Reused++
		}
		original := w.Candidate.Content
		if w.Decision < len(proposed) {
			original = proposed[w.Decision].Content
		}
		src := memory.Source{Channel: memory.ChannelExtraction, ConversationID: triggers[0].ConversationID,
			MessageID: sourceMessage(w.Candidate, triggers)}
		m, changed, err := p.write(ctx, scope, w.Key, w.Candidate, original, w.Merging, src, attributesOf(src.MessageID, triggers))
		if err != nil {
			return err
		}
		if changed {
			rep.Written++
			rep.outcomeOf(src.MessageID).learned++
		} else {
			rep.Unchanged++
			rep.outcomeOf(src.MessageID).known++
		}
		if !m.IsLive(p.deps.Clock.Now()) {
			delete(live, w.Key)
			continue
		}
		prev, had := live[w.Key]
		slot := candidate.Stored{Memory: m, Writer: w.Decision, Existing: -1}
		if had {
			slot.Existing = prev.Existing
		}
		live[w.Key] = slot
		if !slices.Contains(written, w.Key) {
			written = append(written, w.Key)
		}
	}
	stored := make([]candidate.Stored, 0, len(live))
	for _, s := range live {
		stored = append(stored, s)
	}
	src := memory.Source{Channel: memory.ChannelExtraction, ConversationID: triggers[0].ConversationID,
		MessageID: triggers[len(triggers)-1].ID}
	for _, f := range policy.PlanMerges(written, stored, n) {
		folded, err := p.fold(ctx, scope, f.Survivor, f.Copy, src)
		if err != nil {
			return err
		}
		if folded {
			rep.Merged++
		}
	}
	return nil
}

func (p *Pipeline) policy() candidate.UpsertPolicy {
	return candidate.UpsertPolicy{Boundaries: p.opts.Boundaries, MaxWrites: p.opts.MaxWriteItems,
		DuplicateSimilarity: p.opts.DuplicateSimilarity, MergeSimilarity: p.opts.MergeSimilarity}
}

// write applies one decision to one key.
func (p *Pipeline) write(ctx context.Context, scope memory.Scope, key memory.Key, c candidate.Candidate,
	original string, merging bool, src memory.Source, attrs memory.Attributes,
) (memory.Memory, bool, error) {
	var unchanged memory.Memory
	m, err := p.deps.Memories.Update(ctx, scope, key, func(cur *memory.Memory) (memory.Change, error) {
		now := p.deps.Clock.Now()
		isLive := cur != nil && cur.IsLive(now)
		if cur != nil {
			unchanged = *cur
		}
		if c.Op == candidate.OpDelete {
			if cur == nil || !cur.Active() {
				return memory.Change{}, ports.ErrNoChange
			}
			next := cur.Deactivate(src, now)
			return memory.Change{Memory: next, Event: memory.NewEvent(p.deps.IDs.New(), memory.OpDelete, cur, next)}, nil
		}
		draft := memory.Draft{Type: c.Type, Content: strings.TrimSpace(c.Content), Importance: c.Importance,
			Confidence: c.Confidence, TTLDays: c.TTLDays, Attributes: attrs, Source: src}
		if draft.Importance == 0 {
			draft.Importance = memory.DefaultImportance
		}
		if isLive {
			if (candidate.SameContent(cur.Content(), draft.Content) && cur.Type() == draft.Type) ||
				((merging || c.Op == candidate.OpAppend) && contains(cur.Content(), original)) {
				return p.restated(*cur, src, now) // said again: its expiry restarts
			}
			if c.Op == candidate.OpAppend && !merging {
				if next, err := cur.Append(draft.Content, src, now); err == nil {
					return memory.Change{Memory: next, Event: memory.NewEvent(p.deps.IDs.New(), memory.OpAppend, cur, next)}, nil
				}
				// Too long to append: the candidate replaces the content instead.
			}
		}
		if cur == nil {
			next, err := memory.New(p.deps.IDs.New(), scope, key, draft, p.opts.Policy, now)
			if err != nil {
				return memory.Change{}, err
			}
			return memory.Change{Memory: next, Event: memory.NewEvent(p.deps.IDs.New(), memory.OpAdd, nil, next)}, nil
		}
		next, err := cur.Replace(draft, p.opts.Policy, now)
		if err != nil {
			return memory.Change{}, err
		}
		op := memory.OpUpdate
		if !isLive {
			op = memory.OpAdd // a deleted or expired memory said again is new to the user
		}
		return memory.Change{Memory: next, Event: memory.NewEvent(p.deps.IDs.New(), op, cur, next)}, nil
	})
	if errors.Is(err, ports.ErrNoChange) {
		return unchanged, false, nil
	}
	if err != nil {
		return memory.Memory{}, false, err
	}
	return m, true, nil
}

// restated renews a live memory that a candidate says again (memory.Renewed);
// ErrNoChange when that changes nothing.
func (p *Pipeline) restated(cur memory.Memory, src memory.Source, now time.Time) (memory.Change, error) {
	next, ok := cur.Renewed(src, now)
	if !ok {
		return memory.Change{}, ports.ErrNoChange
	}
	return memory.Change{Memory: next, Event: memory.NewEvent(p.deps.IDs.New(), memory.OpUpdate, &cur, next)}, nil
}

// fold deactivates the copy (DELETE) and records the merge on the survivor (MERGE),
// which keeps the higher importance and confidence of the two (memory.Merged).
func (p *Pipeline) fold(ctx context.Context, scope memory.Scope, survivor, copyKey memory.Key, src memory.Source) (bool, error) {
	var gone memory.Memory
	_, err := p.deps.Memories.Update(ctx, scope, copyKey, func(cur *memory.Memory) (memory.Change, error) {
		now := p.deps.Clock.Now()
		if cur == nil || !cur.IsLive(now) {
			return memory.Change{}, ports.ErrNoChange
		}
		gone = *cur
		next := cur.Deactivate(src, now)
		return memory.Change{Memory: next, Event: memory.NewEvent(p.deps.IDs.New(), memory.OpDelete, cur, next)}, nil
	})
	if errors.Is(err, ports.ErrNoChange) {
		return false, nil
	}
	if err != nil {
		return false, err
	}
	_, err = p.deps.Memories.Update(ctx, scope, survivor, func(cur *memory.Memory) (memory.Change, error) {
		now := p.deps.Clock.Now()
		if cur == nil || !cur.IsLive(now) {
			return memory.Change{}, ports.ErrNoChange
		}
		next := cur.RevertTo(memory.Merged(cur.State(), gone.State(), now), src, now)
		return memory.Change{Memory: next, Event: memory.NewEvent(p.deps.IDs.New(), memory.OpMerge, cur, next)}, nil
	})
	if err != nil && !errors.Is(err, ports.ErrNoChange) {
		return true, err
	}
	return true, nil
}

// contains reports whether text already says part, up to case, spacing and final
// punctuation.
func contains(text, part string) bool {
	p := candidate.NormalizeContent(part)
	return p != "" && strings.Contains(candidate.NormalizeContent(text), p)
}

// sourceMessage is the trigger a candidate came from, or the newest trigger when
// the extractor did not say (or named a message that is not a trigger).
func sourceMessage(c candidate.Candidate, triggers []conversation.Message) string {
	for _, t := range triggers {
		if t.ID == c.SourceMessageID {
			return t.ID
		}
	}
	return triggers[len(triggers)-1].ID
}

// attributesOf is the agent, app and run ids and the metadata of the trigger with
// this id: a memory carries those of the message it was learned from.
func attributesOf(messageID string, triggers []conversation.Message) memory.Attributes {
	for _, t := range triggers {
		if t.ID == messageID {
			return t.Attributes
		}
	}
	return memory.Attributes{}
}
