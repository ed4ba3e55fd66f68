package extraction

import (
	"context"
	"fmt"
	"unicode/utf8"

	"engram/domain/candidate"
	"engram/domain/conversation"
	"engram/domain/secret"
	"engram/ports"
)

// Stage names in reports and metrics.
const (
	StageExtract = "extract"
	StageRefine  = "refine"
)

// context returns the conversation before the newest trigger, without the triggers
// themselves: earlier turns (assistant replies included) and the user messages the
// prefilter skipped, within ContextMessages and ContextMaxChars (newest kept). It
// is for judging stability only; the extractor never takes facts from it.
func (p *Pipeline) context(ctx context.Context, triggers []conversation.Message) ([]conversation.Message, error) {
	last := triggers[len(triggers)-1]
	before, err := p.deps.Messages.ConversationBefore(ctx, last, p.opts.ContextMessages+len(triggers))
	if err != nil {
		return nil, err
	}
	isTrigger := make(map[string]bool, len(triggers))
	for _, t := range triggers {
		isTrigger[t.Seq] = true
	}
	budget, taken, first := p.opts.ContextMaxChars, 0, len(before)
	for i := len(before) - 1; i >= 0; i-- {
		if isTrigger[before[i].Seq] {
			continue
		}
		n := utf8.RuneCountInString(before[i].Content)
		if taken == p.opts.ContextMessages || n > budget {
			break
		}
		budget -= n
		taken++
		first = i
	}
	out := make([]conversation.Message, 0, len(before)-first)
	for _, m := range before[first:] {
		// A secret stored as given (ENGRAM_SECRETS=flag) is never shown to a model.
		if !isTrigger[m.Seq] && !secret.Contains(m.Content) {
			out = append(out, m)
		}
	}
	return out, nil
}

// extract is stage 1: one extractor call for every trigger of the conversation.
func (p *Pipeline) extract(ctx context.Context, triggers, earlier []conversation.Message, rep *Report) ([]candidate.Candidate, error) {
	first := triggers[0]
	if w := p.calls.admit(StageExtract, first.Scope.Tenant, p.deps.Clock.Now()); w != nil {
		return nil, w
	}
	summary, err := p.summary(ctx, first)
	if err != nil {
		return nil, fmt.Errorf("extract: %w", err)
	}
	release, err := p.calls.acquire(ctx)
	if err != nil {
		return nil, err
	}
	cands, usage, err := p.deps.Extractor.Extract(ctx, ports.ExtractionInput{
		Scope:          first.Scope,
		ConversationID: first.ConversationID,
		Messages:       triggers,
		Context:        earlier,
		Summary:        summary,
		Now:            p.deps.Clock.Now(),
	})
	release()
	rep.call(StageExtract, usage, err, false)
	if err != nil {
		if w := p.calls.rateLimited(StageExtract, err, p.deps.Clock.Now()); w != nil {
			return nil, w
		}
		return nil, fmt.Errorf("extract: %w", err)
	}
	rep.Candidates = len(cands)
	return cands, nil
}

// summary is the conversation's session summary, when it is a session.
func (p *Pipeline) summary(ctx context.Context, m conversation.Message) (string, error) {
	if p.deps.Summaries == nil {
		return "", nil
	}
	return p.deps.Summaries.ConversationSummary(ctx, m.Scope, m.ConversationID)
}
