package extraction

import (
	"context"
	"errors"
	"slices"
	"strings"

	"engram/domain/candidate"
	"engram/domain/conversation"
	"engram/domain/memory"
	"engram/ports"
)

// Reasons a refined candidate is not written.
const (
	ReasonRefinedAway    = "refined_away"     // stage 2 dropped it
	ReasonOverWriteLimit = "over_write_limit" // past LONG_TERM_MEMORY_MAX_WRITE_ITEMS
)

// upsert is stage 3, the same for every extractor. Each decision becomes at most
// one write through MemoryStore.Update, in the order proposed, up to MaxWriteItems:
//
//   - the key is the decision's target (or the candidate's), screened again, since
//     a refiner may have rewritten it, and so is the content for instruction-like
//     text;
//   - without a live memory under that key, a live memory at least
//     DuplicateSimilarity similar lends its key (the same fact is not stored twice);
//   - what the store already says is not written again: the same content, or, for
//     an append or merge, content the memory already contains. That makes a second
//     run over the same message (a retry after a crash) write nothing;
//   - after the writes, live copies at least MergeSimilarity similar to a written
//     memory are folded into it: a DELETE event on the copy, a MERGE event on the
//     survivor.
//
// Every event has channel extraction and the source conversation and message.
func (p *Pipeline) upsert(ctx context.Context, triggers []conversation.Message, proposed []candidate.Candidate,
	decisions []candidate.Decision, existing []memory.Memory, rep *Report,
) error {
	scope := triggers[0].Scope
	now := p.deps.Clock.Now()
	live := map[memory.Key]memory.Memory{}
	for _, m := range existing {
		if m.IsLive(now) {
			live[m.Key()] = m
		}
	}
	var (
		written []memory.Key
		writes  int
	)
	for i, d := range decisions {
		if d.Verdict == candidate.VerdictDrop {
			rep.drop(ReasonRefinedAway)
			continue
		}
		if writes == p.opts.MaxWriteItems {
			rep.drop(ReasonOverWriteLimit)
			continue
		}
		c := d.Candidate
		if !d.TargetKey.IsZero() {
			c.Key = d.TargetKey.String()
		}
		if s := p.opts.Boundaries.Check(c); !s.Kept {
			rep.drop(string(s.Reason))
			continue
		}
		if s := candidate.ScreenInstructions(c); !s.Kept { // a refiner may have rewritten the content
			rep.drop(string(s.Reason))
			continue
		}
		key, err := memory.ParseKey(c.Key)
		if err != nil {
			rep.drop(string(candidate.ReasonInvalid))
			continue
		}
		if c.Op != candidate.OpDelete {
			if _, ok := live[key]; !ok {
				if m, sim := p.mostSimilar(ctx, c.Content, live); m != nil && sim >= p.opts.DuplicateSimilarity {
					key = m.Key()
					rep.Reused++
				}
			}
		}
		original := c.Content
		if i < len(proposed) {
			original = proposed[i].Content
		}
		src := memory.Source{Channel: memory.ChannelExtraction, ConversationID: triggers[0].ConversationID,
			MessageID: sourceMessage(c, triggers)}
		m, changed, err := p.write(ctx, scope, key, c, original, d.Verdict == candidate.VerdictMerge, src)
		if err != nil {
			return err
		}
		writes++
		if changed {
			rep.Written++
		} else {
			rep.Unchanged++
		}
		if m.IsLive(p.deps.Clock.Now()) {
			live[key] = m
			if !slices.Contains(written, key) {
				written = append(written, key)
			}
		} else {
			delete(live, key)
		}
	}
	return p.merge(ctx, scope, written, live, triggers, rep)
}

// write applies one decision to one key.
func (p *Pipeline) write(ctx context.Context, scope memory.Scope, key memory.Key, c candidate.Candidate,
	original string, merging bool, src memory.Source,
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
			Confidence: c.Confidence, TTLDays: c.TTLDays, Source: src}
		if draft.Importance == 0 {
			draft.Importance = memory.DefaultImportance
		}
		if isLive {
			if candidate.SameContent(cur.Content(), draft.Content) && cur.Type() == draft.Type {
				return memory.Change{}, ports.ErrNoChange
			}
			if (merging || c.Op == candidate.OpAppend) && contains(cur.Content(), original) {
				return memory.Change{}, ports.ErrNoChange
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

// merge folds live copies at least MergeSimilarity similar to a written memory
// into it. Copies already folded (a second run) are not live and are left alone.
func (p *Pipeline) merge(ctx context.Context, scope memory.Scope, written []memory.Key,
	live map[memory.Key]memory.Memory, triggers []conversation.Message, rep *Report,
) error {
	src := memory.Source{Channel: memory.ChannelExtraction, ConversationID: triggers[0].ConversationID,
		MessageID: triggers[len(triggers)-1].ID}
	others := make([]memory.Key, 0, len(live))
	for k := range live {
		others = append(others, k)
	}
	slices.SortFunc(others, memory.Key.Compare)
	for _, key := range written {
		survivor, ok := live[key]
		if !ok {
			continue // folded into an earlier survivor
		}
		var (
			candidates []memory.Key
			texts      []string
		)
		for _, k := range others {
			if copyOf, ok := live[k]; ok && k != key {
				candidates = append(candidates, k)
				texts = append(texts, copyOf.Content())
			}
		}
		scores := p.deps.Scorer.Scores(ctx, survivor.Content(), texts)
		for i, k := range candidates {
			copyOf, ok := live[k]
			if !ok {
				continue // folded meanwhile
			}
			if !candidate.SameContent(copyOf.Content(), survivor.Content()) && scores[i] < p.opts.MergeSimilarity {
				continue
			}
			folded, err := p.fold(ctx, scope, survivor.Key(), copyOf.Key(), src)
			if err != nil {
				return err
			}
			delete(live, k)
			if folded {
				rep.Merged++
			}
		}
	}
	return nil
}

// fold deactivates the copy (DELETE) and records the merge on the survivor (MERGE),
// which keeps the higher importance and confidence of the two.
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
		target := cur.State()
		target.Importance = max(target.Importance, gone.Importance())
		target.Confidence = max(target.Confidence, gone.Confidence())
		next := cur.RevertTo(target, src, now)
		return memory.Change{Memory: next, Event: memory.NewEvent(p.deps.IDs.New(), memory.OpMerge, cur, next)}, nil
	})
	if err != nil && !errors.Is(err, ports.ErrNoChange) {
		return true, err
	}
	return true, nil
}

// mostSimilar is the live memory most similar to content (ties: the smaller key).
func (p *Pipeline) mostSimilar(ctx context.Context, content string, live map[memory.Key]memory.Memory) (*memory.Memory, float64) {
	keys := make([]memory.Key, 0, len(live))
	for k := range live {
		keys = append(keys, k)
	}
	slices.SortFunc(keys, memory.Key.Compare)
	texts := make([]string, len(keys))
	for i, k := range keys {
		texts[i] = live[k].Content()
	}
	var (
		best    *memory.Memory
		bestSim float64
	)
	for i, sim := range p.deps.Scorer.Scores(ctx, content, texts) {
		if sim > bestSim {
			m := live[keys[i]]
			best, bestSim = &m, sim
		}
	}
	return best, bestSim
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
