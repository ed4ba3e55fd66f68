package contextbuild

import (
	"engram/domain/promptctx"
	"engram/domain/secret"
)

// packed is the plan and, for each of its decisions, the index of its candidate.
type packed struct {
	plan promptctx.Plan
	of   []int // of[j] is the candidate of plan.Decisions[j]
}

// pack packs the candidates, screening the text of each one it would inject for
// secrets (domain/secret) and instructions (domain/instruction) and packing again
// without those it leaves out, until every injected text was screened. Only what would be injected is
// screened, so the cost follows the budget, not the number of candidates. With
// instructionLikeToo, such an item stays, quoted like every other, its label
// marked.
func (s *Service) pack(p plan, c *candidates) packed {
	budget := promptctx.Budget{Chars: p.budget, Shares: s.opts.Shares}
	screened := make([]bool, len(c.items))
	secretsChecked := make([]bool, len(c.items))
	excluded := make([]bool, len(c.items))
	for {
		var offered []promptctx.Item
		var of []int
		for i, it := range c.items {
			if !excluded[i] {
				offered, of = append(offered, it), append(of, i)
			}
		}
		out := packed{plan: promptctx.Pack(offered, budget, s.opts.Layout), of: of}
		again := false
		for j, d := range out.plan.Decisions {
			i := of[j]
			if d.Kept && !secretsChecked[i] && s.opts.Secrets.Screens() {
				// Every injected text, the profile's and the session's too: text
				// stored in flag mode, or before the screen, holds secrets as given.
				secretsChecked[i] = true
				if secret.Contains(c.items[i].Text) {
					again, excluded[i] = true, true
					c.drop(c.items[i], promptctx.ReasonSecret)
					continue
				}
			}
			if !d.Kept || !c.screen[i] || screened[i] {
				continue
			}
			screened[i] = true
			if !s.screen.instructionLike(c.items[i].Text) {
				continue
			}
			again = true
			if p.instructionLikeToo {
				c.items[i].Label = labelled(c.items[i].Label, s.opts.Layout.Language.InstructionLikeMark())
				continue
			}
			excluded[i] = true
			c.drop(c.items[i], promptctx.ReasonInstructionLike)
		}
		if !again {
			return out
		}
	}
}

func labelled(label, mark string) string {
	if label == "" {
		return mark
	}
	return label + " " + mark
}
