package promptctx_test

import (
	"fmt"
	"strings"
	"testing"

	"engram/domain/promptctx"
)

func memoryItem(id string, s promptctx.Section, text string, score float64) promptctx.Item {
	return promptctx.Item{ID: id, Section: s, Kind: "memory", Source: string(s), Label: "[constraint] " + id, Text: text, Score: score}
}

// Standing memories come right after the profile, within their share, which is
// a cap: what it cannot hold is left out (standing_share) and the rest of the
// budget stays for what the question found. A standing memory the search found
// too goes in once.
func TestPack_standingMemoriesHaveTheirOwnCappedShareAndGoInOnce(t *testing.T) {
	t.Parallel()
	items := []promptctx.Item{
		memoryItem("reply.language", promptctx.Standing, "Always reply in Chinese.", 1),
		memoryItem("diet", promptctx.Standing, "Is vegan.", 1),
		memoryItem("long.rule", promptctx.Standing, strings.Repeat("never do this; ", 20), 1),
		memoryItem("diet", promptctx.Memories, "Is vegan.", 0.8),
		memoryItem("city", promptctx.Memories, "Lives in Shanghai.", 0.5),
	}
	p := promptctx.Pack(items, promptctx.Budget{Chars: 400}, zh)
	checkBlock(t, p.Prompt, zh, 400)
	for id, want := range map[string]bool{"reply.language": true, "long.rule": false} {
		if d := decisionOf(t, p, id); d.Kept != want {
			t.Errorf("%s kept %v, want %v: %+v", id, d.Kept, want, d)
		}
	}
	if d := decisionOf(t, p, "long.rule"); d.Reason != promptctx.ReasonStandingShare {
		t.Errorf("long.rule reason %q, want %q", d.Reason, promptctx.ReasonStandingShare)
	}
	var standingDiet, relevantDiet promptctx.Decision
	for _, d := range p.Decisions {
		if d.ID == "diet" && d.Section == promptctx.Standing {
			standingDiet = d
		}
		if d.ID == "diet" && d.Section == promptctx.Memories {
			relevantDiet = d
		}
	}
	if !standingDiet.Kept || relevantDiet.Kept || relevantDiet.Reason != promptctx.ReasonDuplicate {
		t.Errorf("diet standing %+v, relevant %+v: want it once, as standing", standingDiet, relevantDiet)
	}
	if strings.Count(p.Prompt, "Is vegan.") != 1 || !strings.Contains(p.Prompt, "Lives in Shanghai.") {
		t.Errorf("block:\n%s", p.Prompt)
	}
	if i, j := strings.Index(p.Prompt, "## 常驻记忆"), strings.Index(p.Prompt, "## 相关记忆"); i < 0 || j < i {
		t.Errorf("standing memories are not before the relevant ones:\n%s", p.Prompt)
	}
	// Standing memories that do not fit in the share leave it to the others.
	relevant := memoryItem("notes", promptctx.Memories, strings.Repeat("长", 300), 0.9)
	q := promptctx.Pack([]promptctx.Item{relevant}, promptctx.Budget{Chars: 400}, zh)
	if d := decisionOf(t, q, "notes"); !d.Kept || d.Chars < 300 {
		t.Errorf("without standing memories the relevant one did not get their share: %+v", d)
	}
}

// Recent messages go in as exchanges: a user message and its answer together
// or not at all, whatever the budget; only the answer of the newest may be cut.
func TestPack_recentMessagesAreKeptOrDroppedAsPairs(t *testing.T) {
	t.Parallel()
	var items []promptctx.Item
	for i := 4; i >= 1; i-- { // newest first
		x := fmt.Sprintf("x%d", i)
		items = append(items,
			promptctx.Item{ID: x + "/assistant", Section: promptctx.Recent, Kind: "message", Label: "助手", Text: fmt.Sprintf("OK, noted release 2.1%d.", i), Score: 1, Group: x},
			promptctx.Item{ID: x + "/user", Section: promptctx.Recent, Kind: "message", Label: "用户", Text: fmt.Sprintf("We move release 2.1%d to next week, please update the plan.", i), Score: 1, Group: x},
		)
	}
	for budget := 100; budget <= 600; budget += 7 {
		p := promptctx.Pack(items, promptctx.Budget{Chars: budget}, zh)
		checkBlock(t, p.Prompt, zh, budget)
		for i := 1; i <= 4; i++ {
			x := fmt.Sprintf("x%d", i)
			u, a := decisionOf(t, p, x+"/user"), decisionOf(t, p, x+"/assistant")
			if u.Kept != a.Kept {
				t.Errorf("budget %d: %s user kept %v, answer kept %v\n%s", budget, x, u.Kept, a.Kept, p.Prompt)
			}
			if u.Truncated {
				t.Errorf("budget %d: the question of %s was cut", budget, x)
			}
		}
	}
}

// A summary that must be cut keeps its sentences most relevant to the question,
// in their order, rather than its first characters.
func TestPack_aCutSummaryKeepsItsMostRelevantSentences(t *testing.T) {
	t.Parallel()
	parts := []promptctx.Part{
		{Text: "The user talked about the weather for a long while and about the traffic downtown. ", Score: 0},
		{Text: "They also mentioned a trip to the mountains last spring with friends. ", Score: 0.1},
		{Text: "The release of version 2.14 moved to December 15. ", Score: 0.9},
		{Text: "Lunch was noodles.", Score: 0},
	}
	var text string
	for _, p := range parts {
		text += p.Text
	}
	summary := promptctx.Item{ID: "summary", Section: promptctx.Summary, Kind: "summary", Text: text, Score: 1, Parts: parts}
	p := promptctx.Pack([]promptctx.Item{summary}, promptctx.Budget{Chars: 140}, zh)
	checkBlock(t, p.Prompt, zh, 140)
	d := decisionOf(t, p, "summary")
	if !d.Kept || !d.Truncated || !strings.Contains(d.RenderedText(), "version 2.14 moved to December 15.") || strings.Contains(d.RenderedText(), "weather") {
		t.Errorf("cut summary %+v: %q\n%s", d, d.RenderedText(), p.Prompt)
	}
	if !strings.HasPrefix(d.RenderedText(), "…") {
		t.Errorf("the cut does not say sentences before it were left out: %q", d.RenderedText())
	}
}
