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
	policy := p.policy()
	attribute(decisions, triggers, rep)
	plan := policy.PlanWrites(decisions, n, p.deps.Clock.Now())
	rep.planned(plan, decisions)
	after := liveBefore(n, p.deps.Clock.Now())
	for _, w := range plan.Writes {
		m, err := p.applyWrite(ctx, w, proposed, triggers, rep)
		if err != nil {
			return err
		}
		after.record(w, m, p.deps.Clock.Now())
	}
	src := memory.Source{Channel: memory.ChannelExtraction, ConversationID: triggers[0].ConversationID,
		MessageID: triggers[len(triggers)-1].ID}
	for _, f := range policy.PlanMerges(after.written, after.stored(), n) {
		folded, err := p.fold(ctx, triggers[0].Scope, f.Survivor, f.Copy, src)
		if err != nil {
			return err
		}
		if folded {
			rep.Merged++
		}
	}
	return nil
}

// attribute counts each decision against the message it came from (the write
// limit is per message), so that each message learns what came of its
// candidates; a dropped one is something the store already knows.
func attribute(decisions []candidate.Decision, triggers []conversation.Message, rep *Report) {
	for i := range decisions {
		decisions[i].Candidate.SourceMessageID = sourceMessage(decisions[i].Candidate, triggers)
		if decisions[i].Verdict == candidate.VerdictDrop {
			rep.outcomeOf(decisions[i].Candidate.SourceMessageID).known++
		}
	}
}

// planned counts what the write plan leaves out: dropped, or deferred to a later
// run of its message.
func (r *Report) planned(plan candidate.WritePlan, decisions []candidate.Decision) {
	for _, reason := range plan.Dropped {
		r.drop(reason)
	}
	for _, i := range plan.Deferred {
		r.Deferred++
		r.outcomeOf(decisions[i].Candidate.SourceMessageID).deferred++
	}
}

// applyWrite writes one planned write and counts what it did.
func (p *Pipeline) applyWrite(ctx context.Context, w candidate.Write, proposed []candidate.Candidate,
	triggers []conversation.Message, rep *Report,
) (memory.Memory, error) {
	if w.Reused {
		rep.Reused++
	}
	original := w.Candidate.Content
	if w.Decision < len(proposed) {
		original = proposed[w.Decision].Content
	}
	src := memory.Source{Channel: memory.ChannelExtraction, ConversationID: triggers[0].ConversationID,
		MessageID: sourceMessage(w.Candidate, triggers)}
	m, changed, err := p.write(ctx, triggers[0].Scope, w.Key, w.Candidate, original, w.Merging, src, attributesOf(src.MessageID, triggers))
	if err != nil {
		return memory.Memory{}, err
	}
	if changed {
		rep.Written++
		rep.outcomeOf(src.MessageID).learned++
	} else {
		rep.Unchanged++
		rep.outcomeOf(src.MessageID).known++
	}
	return m, nil
}

// liveAfterWrites is what is live as the writes land: the neighbourhood's live
// memories, then each written memory in place of what its key held. PlanMerges
// reads it.
type liveAfterWrites struct {
	live    map[memory.Key]candidate.Stored
	written []memory.Key // the keys written and left live, in order
}

func liveBefore(n candidate.Neighbourhood, now time.Time) *liveAfterWrites {
	l := &liveAfterWrites{live: map[memory.Key]candidate.Stored{}}
	for j, m := range n.Existing {
		if m.IsLive(now) {
			l.live[m.Key()] = candidate.Stored{Memory: m, Writer: -1, Existing: j}
		}
	}
	return l
}

// record puts what write w left under its key: gone when it is not live, else
// the written memory, which keeps the place of the existing one it replaced.
func (l *liveAfterWrites) record(w candidate.Write, m memory.Memory, now time.Time) {
	if !m.IsLive(now) {
		delete(l.live, w.Key)
		return
	}
	slot := candidate.Stored{Memory: m, Writer: w.Decision, Existing: -1}
	if prev, had := l.live[w.Key]; had {
		slot.Existing = prev.Existing
	}
	l.live[w.Key] = slot
	if !slices.Contains(l.written, w.Key) {
		l.written = append(l.written, w.Key)
	}
}

func (l *liveAfterWrites) stored() []candidate.Stored {
	out := make([]candidate.Stored, 0, len(l.live))
	for _, s := range l.live {
		out = append(out, s)
	}
	return out
}

func (p *Pipeline) policy() candidate.UpsertPolicy {
	return candidate.UpsertPolicy{Boundaries: p.opts.Boundaries, MaxWrites: p.opts.MaxWriteItems,
		DuplicateSimilarity: p.opts.DuplicateSimilarity, MergeSimilarity: p.opts.MergeSimilarity}
}

// write applies one decision to one key: a delete ends the memory; anything
// else is the draft written through memory.Write, which only renews a live
// memory that the candidate says again (the same content and type, or — when
// appending or merging — content the memory already holds).
func (p *Pipeline) write(ctx context.Context, scope memory.Scope, key memory.Key, c candidate.Candidate,
	original string, merging bool, src memory.Source, attrs memory.Attributes,
) (memory.Memory, bool, error) {
	draft := memory.Draft{Type: c.Type, Content: strings.TrimSpace(c.Content), Importance: c.Importance,
		Confidence: c.Confidence, TTLDays: c.TTLDays, Attributes: attrs, Source: src}
	if draft.Importance == 0 {
		draft.Importance = memory.DefaultImportance
	}
	extends := merging || c.Op == candidate.OpAppend
	in := memory.Intent{Scope: scope, Key: key, Draft: draft, Append: c.Op == candidate.OpAppend && !merging,
		Restates: func(live memory.Memory) bool {
			return (candidate.SameContent(live.Content(), draft.Content) && live.Type() == draft.Type) ||
				(extends && contains(live.Content(), original))
		}}
	change := func(cur *memory.Memory, now time.Time) (memory.Change, bool, error) {
		if c.Op == candidate.OpDelete {
			return deletion(cur, src, p.deps.IDs.New, now)
		}
		return memory.Write(cur, in, p.opts.Policy, p.deps.IDs.New, now)
	}
	return p.apply(ctx, scope, key, change)
}

// deletion ends an active memory (DELETE); nothing changes when none is active.
func deletion(cur *memory.Memory, src memory.Source, ids func() string, now time.Time) (memory.Change, bool, error) {
	if cur == nil || !cur.Active() {
		return memory.Change{}, false, nil
	}
	next := cur.Deactivate(src, now)
	return memory.Change{Memory: next, Event: memory.NewEvent(ids(), memory.OpDelete, cur, next)}, true, nil
}

// apply stores what change makes of the key in one transaction. changed is false
// when it makes nothing: then m is what the key held (the zero memory if nothing).
func (p *Pipeline) apply(ctx context.Context, scope memory.Scope, key memory.Key,
	change func(cur *memory.Memory, now time.Time) (memory.Change, bool, error),
) (m memory.Memory, changed bool, err error) {
	var unchanged memory.Memory
	m, err = p.deps.Memories.Update(ctx, scope, key, func(cur *memory.Memory) (memory.Change, error) {
		c, ok, err := change(cur, p.deps.Clock.Now())
		if err == nil && !ok {
			if cur != nil {
				unchanged = *cur
			}
			return c, ports.ErrNoChange
		}
		return c, err
	})
	if errors.Is(err, ports.ErrNoChange) {
		return unchanged, false, nil
	}
	if err != nil {
		return memory.Memory{}, false, err
	}
	return m, true, nil
}

// fold deactivates the copy (DELETE) and records the merge on the survivor
// (MERGE), which keeps the higher importance and confidence of the two
// (memory.Fold). folded is false when the copy was no longer live.
func (p *Pipeline) fold(ctx context.Context, scope memory.Scope, survivor, copyKey memory.Key, src memory.Source) (bool, error) {
	gone, folded, err := p.apply(ctx, scope, copyKey, func(cur *memory.Memory, now time.Time) (memory.Change, bool, error) {
		c, ok := memory.FoldOut(cur, src, p.deps.IDs.New, now)
		return c, ok, nil
	})
	if err != nil || !folded {
		return false, err
	}
	_, _, err = p.apply(ctx, scope, survivor, func(cur *memory.Memory, now time.Time) (memory.Change, bool, error) {
		c, ok := memory.Fold(cur, gone, nil, src, p.deps.IDs.New, now)
		return c, ok, nil
	})
	return true, err
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
