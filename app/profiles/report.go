package profiles

import (
	"cmp"
	"context"
	"errors"
	"time"

	"engram/domain/memory"
	"engram/domain/profile"
	"engram/ports"
)

// Fallback reasons of a rule-written report when a model is configured.
const (
	FallbackLLMTimeout     = "llm_timeout"
	FallbackLLMBadOutput   = "llm_bad_output"
	FallbackLLMUnavailable = "llm_unavailable"
)

// RequestReport asks for an evaluation report of a user.
type RequestReport struct {
	Scope memory.Scope
	Actor string // X-Acting-User: a manager above the user
}

// RequestReport writes an evaluation of the user for a manager above them (the
// request is audited; anyone else is refused and audited): the model writes it
// from the profile, the task statistics and the user's work memories and cites
// the facts it used; without a model, or when the model fails or answers
// something unusable, the rule report is written from the same facts and says
// why. The report is stored with every fact it was given.
func (s *Service) RequestReport(ctx context.Context, cmd RequestReport) (profile.Report, error) {
	subj, err := s.authorize(ctx, cmd.Scope, cmd.Actor, ActionReportCreate, managersOnly)
	if err != nil {
		return profile.Report{}, err
	}
	memories, err := s.memoryFacts(ctx, cmd.Scope)
	if err != nil {
		return profile.Report{}, err
	}
	st := subj.profile.State()
	r := profile.Report{
		ID: s.deps.IDs.New(), Scope: cmd.Scope, Actor: cmd.Actor, Language: subj.profile.Language(),
		Facts:       profile.ReportFacts(st, memories, s.opts.ReportMaxMemories),
		GeneratedAt: s.deps.Clock.Now().UTC().Truncate(time.Microsecond), // as stored, so a later read says the same
	}
	if s.deps.Writer != nil && len(r.Facts) > 0 {
		if err := s.writeWithModel(ctx, &r, st); err != nil {
			return profile.Report{}, err
		}
	}
	if r.Text == "" {
		r.Text, r.FactsUsed = profile.RuleReport(st, r.Facts)
		r.Generator = profile.GeneratorRules
	}
	if err := s.deps.Reports.SaveReport(ctx, r); err != nil {
		return profile.Report{}, err
	}
	return r, nil
}

// writeWithModel fills r from the model, or records why it could not; it fails
// only when the caller gave up.
func (s *Service) writeWithModel(ctx context.Context, r *profile.Report, st profile.State) error {
	wctx, cancel := context.WithTimeout(ctx, s.opts.ReportTimeout)
	defer cancel()
	draft, usage, err := s.deps.Writer.WriteReport(wctx, ports.ReportRequest{
		Scope: r.Scope, Subject: cmp.Or(st.Declared.DisplayName, r.Scope.User), Language: r.Language, Facts: r.Facts, Now: r.GeneratedAt,
	})
	if err == nil {
		r.Text, r.FactsUsed, r.Generator, r.Model = draft.Text, draft.FactsUsed, profile.GeneratorLLM, draft.Model
		return nil
	}
	if ctx.Err() != nil {
		return ctx.Err()
	}
	var bad interface{ BadOutput() bool }
	switch {
	case errors.As(err, &bad) && bad.BadOutput():
		r.FallbackReason = FallbackLLMBadOutput
	case errors.Is(err, context.DeadlineExceeded) || wctx.Err() != nil:
		r.FallbackReason = FallbackLLMTimeout
	default:
		r.FallbackReason = FallbackLLMUnavailable
	}
	s.opts.Logger.WarnContext(ctx, "profiles: the model could not write a report; the rule report is used",
		"user", r.Scope.User, "reason", r.FallbackReason, "calls", usage.Calls, "error", err)
	return nil
}

// memoryFacts are the user's live memories as the derivations and reports see them.
func (s *Service) memoryFacts(ctx context.Context, scope memory.Scope) ([]profile.MemoryFact, error) {
	page, err := s.deps.Memories.List(ctx, scope, ports.MemoryQuery{Limit: s.opts.MemorySample, Now: s.deps.Clock.Now()})
	if err != nil {
		return nil, err
	}
	out := make([]profile.MemoryFact, 0, len(page.Items))
	for _, m := range page.Items {
		out = append(out, profile.MemoryFact{
			Key: m.Key().String(), Type: string(m.Type()), Content: m.Content(), Importance: m.Importance(), UpdatedAt: m.UpdatedAt(),
		})
	}
	return out, nil
}
