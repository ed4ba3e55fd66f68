package retrieval_test

import (
	"slices"
	"testing"

	"engram/app/retrieval"
	"engram/domain/conversation"
	"engram/ports"
)

// stubExpander widens "pill" to "penicillin" at half weight.
type stubExpander struct{}

func (stubExpander) Expand(query string) ([]string, []ports.RelatedTerm) {
	return []string{"pill"}, []ports.RelatedTerm{{Of: "pill", Term: "penicillin", Weight: 0.5}}
}

// TestSearch_expanderWidensMemoriesNotMessages: with an expander, memories are
// searched with its terms and related terms, so a question finds a memory in
// other words; messages keep the analysed question (the user's own words).
func TestSearch_expanderWidensMemoriesNotMessages(t *testing.T) {
	e := newEnv(t, retrieval.Options{MinScore: 0.01})
	e.save(alice, "allergy-penicillin", "constraint", "allergic to penicillin")
	e.post(alice, "c1", conversation.Input{Content: "the doctor gave me penicillin"})
	plain := e.search(retrieval.Search{Query: "pill", Mode: "lexical", Within: retrieval.WithinAll})
	if len(plain.Items) != 0 {
		t.Fatalf("without an expander: %v; want nothing", keysOf(plain))
	}
	e.svc = retrieval.New(retrieval.Deps{Analyzer: e.analyzer, Expander: stubExpander{}, Lexical: e.searcher,
		Memories: e.store, Messages: e.msgStore, Clock: e.clock}, retrieval.Options{MinScore: 0.01})
	got := e.search(retrieval.Search{Query: "pill", Mode: "lexical", Within: retrieval.WithinAll})
	if keys := keysOf(got); !slices.Equal(keys, []string{"allergy-penicillin"}) || got.Items[0].Message != nil {
		t.Fatalf("with an expander: %v; want the memory only", keys)
	}
	if s := got.Items[0].Score; s <= 0 || s > 0.5 {
		t.Errorf("score %v; want above 0 and at most the related term's weight", s)
	}
}
