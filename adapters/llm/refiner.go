package llm

import (
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"strings"
	"time"

	"engram/configs/prompts"
	"engram/domain/candidate"
	"engram/domain/memory"
	"engram/ports"
)

// RefinerOptions configures stage 2.
type RefinerOptions struct {
	Prompts *prompts.Set // nil: the embedded prompts
	Logger  *slog.Logger // ignored decisions are logged here; nil: not logged
}

// Refiner is the LLM refiner of stage 2.
type Refiner struct {
	chat    Chatter
	prompts *prompts.Set
	log     *slog.Logger
}

var _ ports.Refiner = (*Refiner)(nil)

// NewRefiner builds a refiner over a chat client.
func NewRefiner(chat Chatter, opts RefinerOptions) *Refiner {
	r := &Refiner{chat: chat, prompts: opts.Prompts, log: opts.Logger}
	if r.prompts == nil {
		r.prompts = prompts.Default()
	}
	if r.log == nil {
		r.log = slog.New(slog.DiscardHandler)
	}
	return r
}

// Refinement is everything stage 2 decided in one call, for the trace.
type Refinement struct {
	Decisions     []candidate.Decision // exactly one per candidate, in order
	Ignored       []Rejection          // answer items that could not be used
	Usage         ports.LLMUsage
	Answer        string
	PromptVersion string
}

// Refine implements ports.Refiner: one decision per candidate, in the candidates'
// order. A candidate the model gave no usable decision for is kept as proposed.
func (r *Refiner) Refine(ctx context.Context, in ports.RefineInput) ([]candidate.Decision, ports.LLMUsage, error) {
	x, err := r.RefineDetailed(ctx, in)
	for _, ig := range x.Ignored {
		r.log.InfoContext(ctx, "llm refiner ignored a decision", "item", ig.Index, "key", ig.Key, "reason", ig.Reason)
	}
	return x.Decisions, x.Usage, err
}

// RefineDetailed is Refine with the ignored answer items and the raw answer.
func (r *Refiner) RefineDetailed(ctx context.Context, in ports.RefineInput) (Refinement, error) {
	x := Refinement{PromptVersion: r.prompts.Version(prompts.Refine)}
	if len(in.Candidates) == 0 {
		return x, nil
	}
	data := prompts.RefineData{Today: "unknown"}
	if !in.Now.IsZero() {
		data.Today = in.Now.UTC().Format(time.DateOnly)
	}
	existing := make(map[memory.Key]bool, len(in.Existing))
	for _, m := range in.Existing {
		existing[m.Key()] = true
		data.Existing = append(data.Existing, prompts.RefineExisting{Key: m.Key().String(), MemoryType: string(m.Type()), Content: m.Content()})
	}
	for i, c := range in.Candidates {
		key := c.Key
		if k, err := memory.ParseKey(c.Key); err == nil {
			key = k.String()
		}
		data.Candidates = append(data.Candidates, prompts.RefineCandidate{Index: i, Op: string(c.Op), MemoryType: string(c.Type),
			Key: key, Content: c.Content, Importance: c.Importance, Confidence: c.Confidence, TTLDays: c.TTLDays})
	}
	p, err := r.prompts.Render(prompts.Refine, data)
	if err != nil {
		return x, fmt.Errorf("llm: refine: %w", err)
	}
	reply, err := r.chat.Chat(ctx, ChatRequest{JSON: true, Messages: []ChatMessage{
		{Role: RoleSystem, Content: p.System},
		{Role: RoleUser, Content: p.User},
	}})
	x.Usage, x.Answer = reply.Usage, reply.Content
	if err != nil {
		return x, err
	}
	items, err := findItems(reply.Content, []string{"decisions"}, []string{"verdict"})
	if err != nil {
		return x, badOutput("refine", reply.Content, "%v", err)
	}
	x.Decisions, x.Ignored = decide(items, in.Candidates, existing)
	return x, nil
}

type rawDecision struct {
	Index     field `json:"index"`
	Verdict   field `json:"verdict"`
	TargetKey field `json:"target_key"`
	Content   field `json:"content"`
	Reason    field `json:"reason"`
}

// decide turns the answer items into one decision per candidate.
func decide(items []json.RawMessage, cands []candidate.Candidate, existing map[memory.Key]bool) ([]candidate.Decision, []Rejection) {
	decided := make([]*candidate.Decision, len(cands))
	var ignored []Rejection
	for i, item := range items {
		var raw rawDecision
		if err := json.Unmarshal(item, &raw); err != nil {
			ignored = append(ignored, Rejection{Index: i, Reason: "not a JSON object: " + snippet(string(item), 40)})
			continue
		}
		idx, ok := raw.Index.integer()
		if !raw.Index.set || !ok || idx < 0 || idx >= len(cands) {
			ignored = append(ignored, Rejection{Index: i, Reason: fmt.Sprintf("index %s is not a candidate index from 0 to %d", raw.Index.rawText(), len(cands)-1)})
			continue
		}
		if decided[idx] != nil {
			ignored = append(ignored, Rejection{Index: i, Key: cands[idx].Key, Reason: fmt.Sprintf("a second decision for candidate %d", idx)})
			continue
		}
		d, problem := toDecision(raw, cands[idx], existing)
		if problem != "" {
			ignored = append(ignored, Rejection{Index: i, Key: cands[idx].Key, Reason: problem})
			continue
		}
		decided[idx] = &d
	}
	out := make([]candidate.Decision, len(cands))
	for i, d := range decided {
		if d == nil {
			out[i] = candidate.Decision{Candidate: cands[i], Verdict: candidate.VerdictKeep,
				Reason: "the refiner gave no usable decision; kept as proposed"}
			continue
		}
		out[i] = *d
	}
	return out, ignored
}

func toDecision(raw rawDecision, c candidate.Candidate, existing map[memory.Key]bool) (candidate.Decision, string) {
	d := candidate.Decision{Candidate: c}
	v, _ := raw.Verdict.text()
	v = strings.NewReplacer("-", "_", " ", "_").Replace(strings.ToLower(strings.TrimSpace(v)))
	switch d.Verdict = candidate.Verdict(v); d.Verdict {
	case candidate.VerdictKeep, candidate.VerdictMerge, candidate.VerdictReuseKey, candidate.VerdictDrop:
	default:
		return d, fmt.Sprintf("verdict %s is not keep, merge, reuse_key or drop", raw.Verdict.rawText())
	}

	if d.Verdict == candidate.VerdictMerge || d.Verdict == candidate.VerdictReuseKey {
		rawKey, _ := raw.TargetKey.text()
		key, err := memory.ParseKey(rawKey)
		if err != nil {
			return d, fmt.Sprintf("%s needs the target_key of an existing memory", d.Verdict)
		}
		if !existing[key] {
			return d, fmt.Sprintf("target_key %q is not one of the existing memories", key)
		}
		d.TargetKey = key
	}

	if d.Verdict != candidate.VerdictDrop {
		content, ok := raw.Content.text()
		if !ok {
			return d, "content " + raw.Content.rawText() + " is not a string"
		}
		if content = strings.TrimSpace(content); content != "" {
			if err := memory.ValidateContent("content", content); err != nil {
				return d, err.Error()
			}
			d.Candidate.Content = content
		}
	}

	reason, _ := raw.Reason.text()
	d.Reason = snippet(reason, 300)
	return d, ""
}
