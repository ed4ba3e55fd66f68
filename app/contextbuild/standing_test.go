package contextbuild_test

import (
	"strings"
	"testing"

	"engram/app/contextbuild"
	"engram/domain/memory"
	"engram/domain/promptctx"
)

// Standing memories are in the block whatever the question, first after the
// profile, marked source standing in the trace; one the search finds too is
// not repeated among the relevant memories.
func TestBuild_standingMemoriesGoInWhateverTheQuestionAndOnce(t *testing.T) {
	t.Parallel()
	e := newEnv(t, contextbuild.Options{})
	reply, vegan := e.memory("reply.language", "constraint", "Always reply in Chinese."), e.memory("diet", "constraint", "The user is vegan.")
	e.standing.memories = []memory.Memory{*reply, *vegan}
	e.retr.found[contextbuild.WithinMemories] = contextbuild.Found{Hits: []contextbuild.Hit{{Memory: vegan, Score: 0.7}}, ModeUsed: "auto"}
	res := e.build(contextbuild.Request{Query: "Can you suggest a recipe for dinner?"})
	checkExplained(t, res)
	if len(res.Standing) != 2 || len(res.Memories) != 0 {
		t.Fatalf("standing %d, memories %d; want 2 standing and the vegan one not again:\n%s", len(res.Standing), len(res.Memories), res.Prompt)
	}
	if strings.Count(res.Prompt, "The user is vegan.") != 1 || !strings.Contains(res.Prompt, "Always reply in Chinese.") {
		t.Errorf("block:\n%s", res.Prompt)
	}
	if i, j := strings.Index(res.Prompt, "## 用户画像"), strings.Index(res.Prompt, "## 常驻记忆"); i < 0 || j < i {
		t.Errorf("standing memories are not right after the profile:\n%s", res.Prompt)
	}
	for _, it := range res.Trace.Items {
		if it.Section == promptctx.Standing && it.Source != contextbuild.SourceStanding {
			t.Errorf("standing item %s has source %q", it.ID, it.Source)
		}
	}
	if reason, kept := reasonOf(res.Trace, promptctx.Memories, "diet"); kept || reason != promptctx.ReasonDuplicate {
		t.Errorf("the search's diet: kept %v, reason %q; want a duplicate", kept, reason)
	}
	if res.Trace.SourceCount[promptctx.Standing] != 2 {
		t.Errorf("source count %v", res.Trace.SourceCount)
	}
}

// The standing share is a cap: what it cannot hold is counted and left out,
// and include can leave the section out (then it is not read at all).
func TestBuild_standingShareIsCountedAndIncludeLeavesItOut(t *testing.T) {
	t.Parallel()
	e := newEnv(t, contextbuild.Options{})
	for _, k := range []string{"rule.a", "rule.b", "rule.c", "rule.d", "rule.e", "rule.f"} {
		e.standing.memories = append(e.standing.memories, *e.memory(k, "constraint", strings.Repeat("Never schedule meetings before ten. ", 2)))
	}
	res := e.build(contextbuild.Request{Query: "what now?", BudgetChars: 600})
	checkExplained(t, res)
	if len(res.Standing) == 0 || len(res.Standing) == 6 || res.Trace.StandingOverShare != 6-len(res.Standing) {
		t.Errorf("%d standing kept, %d counted over the share; want some of 6 kept and the rest counted", len(res.Standing), res.Trace.StandingOverShare)
	}
	if reason, _ := reasonOf(res.Trace, promptctx.Standing, "rule.f"); reason != promptctx.ReasonStandingShare {
		t.Errorf("rule.f reason %q, want %q", reason, promptctx.ReasonStandingShare)
	}
	reads := e.standing.reads
	res = e.build(contextbuild.Request{Query: "what now?", Include: []string{"memories", "recent"}})
	if len(res.Standing) != 0 || e.standing.reads != reads {
		t.Errorf("include without standing: %d standing, %d reads", len(res.Standing), e.standing.reads-reads)
	}
}

// A query longer than QueryMaxChars is served: the trace keeps its end and
// says it was cut.
func TestBuild_aLongQueryIsCutToItsEnd(t *testing.T) {
	t.Parallel()
	e := newEnv(t, contextbuild.Options{QueryMaxChars: 100})
	query := strings.Repeat("log line with nothing useful ", 200) + "what does this error mean?"
	res := e.build(contextbuild.Request{Query: query})
	tr := res.Trace
	if !tr.QueryTruncated || tr.QueryChars != len([]rune(strings.TrimSpace(query))) || len([]rune(tr.Query)) > 100 {
		t.Errorf("trace query %d chars (truncated %v, asked %d)", len([]rune(tr.Query)), tr.QueryTruncated, tr.QueryChars)
	}
	for _, q := range e.retr.queries { // the search cuts it by the same rule, and searches its ask too
		if q.Text != strings.TrimSpace(query) {
			t.Errorf("the search was given %d characters, not the query", len([]rune(q.Text)))
		}
	}
	if short := e.build(contextbuild.Request{Query: "what now?"}); short.Trace.QueryTruncated || short.Trace.QueryChars != 9 {
		t.Errorf("a short query: %+v", short.Trace)
	}
}

// An answer whose question the session read did not reach never goes in alone.
func TestBuild_anAnswerWithoutItsQuestionIsLeftOut(t *testing.T) {
	t.Parallel()
	e := newEnv(t, contextbuild.Options{RecentMessages: 3})
	e.session("s1", "", "first question", "first answer", "second question", "second answer")
	res := e.build(contextbuild.Request{Query: "what now?", SessionID: "s1"})
	checkExplained(t, res)
	if len(res.Recent) != 2 || res.Recent[0].Text != "second question" {
		t.Errorf("recent %+v, want the second exchange only", res.Recent)
	}
	if reason, kept := reasonOf(res.Trace, promptctx.Recent, "x0/assistant"); kept || reason != contextbuild.ReasonUnpaired {
		t.Errorf("first answer: kept %v, reason %q", kept, reason)
	}
}
