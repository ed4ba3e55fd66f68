package retrieval_test

import (
	"context"
	"testing"

	"engram/app/memories"
	"engram/app/retrieval"
	"engram/domain/memory"
)

func TestSearch_keepsTheMemoriesOfTheAgentAppAndRunAskedFor(t *testing.T) {
	t.Parallel()
	e := newEnv(t, retrieval.Options{})
	for _, m := range []struct{ key, agent, run string }{{"coffee-home", "home-bot", "r1"}, {"coffee-work", "work-bot", "r2"}, {"coffee-any", "", ""}} {
		res, err := e.memories.Save(context.Background(), memories.Save{Scope: alice, Key: m.key, Draft: memory.DraftInput{
			Type: "preference", Content: "Drinks oat milk flat whites", Attributes: memory.AttributesInput{AgentID: m.agent, RunID: m.run}}})
		if err != nil {
			t.Fatal(err)
		}
		e.upsertVectorOf(res.Memory)
	}
	for _, mode := range []string{"lexical", "dense", "auto"} {
		if got := keysOf(e.search(retrieval.Search{Query: "what milk does she drink", Mode: mode, AgentID: "work-bot"})); len(got) != 1 || got[0] != "coffee-work" {
			t.Errorf("%s search of work-bot = %v, want coffee-work only", mode, got)
		}
		if got := keysOf(e.search(retrieval.Search{Query: "what milk does she drink", Mode: mode, AgentID: "home-bot", RunID: "r2"})); len(got) != 0 {
			t.Errorf("%s search of home-bot in r2 = %v, want nothing", mode, got)
		}
		if got := keysOf(e.search(retrieval.Search{Query: "what milk does she drink", Mode: mode})); len(got) != 3 {
			t.Errorf("%s search without ids = %v, want all three", mode, got)
		}
	}
}
