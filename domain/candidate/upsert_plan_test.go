package candidate_test

import (
	"slices"
	"testing"
	"time"

	"engram/domain/candidate"
	"engram/domain/memory"
)

var planNow = time.Date(2026, 12, 1, 9, 0, 0, 0, time.UTC)

func planStored(t *testing.T, key, content string, active bool) memory.Memory {
	t.Helper()
	m, err := memory.New("id-"+key, memory.Scope{Tenant: "t1", User: "u1"}, memory.MustParseKey(key),
		memory.Draft{Type: memory.TypeFact, Content: content, Importance: 3, Confidence: 0.9}, memory.Policy{}, planNow.Add(-time.Hour))
	if err != nil {
		t.Fatal(err)
	}
	if !active {
		m = m.Deactivate(memory.Source{Channel: memory.ChannelTool}, planNow.Add(-time.Minute))
	}
	return m
}

func planCand(key, content string) candidate.Candidate {
	return candidate.Candidate{Op: candidate.OpAdd, Type: memory.TypeFact, Key: key, Content: content, Importance: 3, Confidence: 0.9}
}

func planFrom(message, key, content string, importance int) candidate.Candidate {
	c := planCand(key, content)
	c.SourceMessageID, c.Importance = message, importance
	return c
}

func planKeep(c candidate.Candidate) candidate.Decision {
	return candidate.Decision{Candidate: c, Verdict: candidate.VerdictKeep}
}

func TestCollisions_aKeyOrADuplicateScoreIsSomethingToDecide(t *testing.T) {
	t.Parallel()
	n := candidate.Neighbourhood{
		Existing: []memory.Memory{planStored(t, "home.city", "Lives in Paris", true), planStored(t, "diet", "Vegetarian", false),
			planStored(t, "music.likes", "Likes jazz", true)},
		Alike: [][]float64{
			{0.30, 0, 0.10}, // same key as home.city
			{0, 0.99, 0},    // the only memory it is alike is deleted
			{0, 0, 0.82},    // at the threshold with a live one
			{0.2, 0, 0.81},  // just below
		},
	}
	cands := []candidate.Candidate{planCand("home.city", "Lives in Berlin"), planCand("food.diet", "Eats no meat"),
		planCand("music.jazz", "Loves jazz"), planCand("music.rock", "Likes rock")}
	got := candidate.Collisions(cands, n, 0.82, planNow)
	if want := []bool{true, false, true, false}; !slices.Equal(got, want) {
		t.Errorf("collisions %v, want %v", got, want)
	}
	if got := candidate.Collisions(cands[:1], candidate.Neighbourhood{}, 0.82, planNow); got[0] {
		t.Error("a user without memories has a collision")
	}
}

func TestPlanWrites(t *testing.T) {
	t.Parallel()
	policy := candidate.UpsertPolicy{MaxWrites: 2, DuplicateSimilarity: 0.82, MergeSimilarity: 0.9}
	allergy := planStored(t, "allergy.peanuts", "Allergic to peanuts", true)
	tests := []struct {
		name      string
		decisions []candidate.Decision
		n         candidate.Neighbourhood
		wantKeys  []string
		wantReuse []bool
		dropped   []string
		deferred  []int
	}{
		{
			name:      "new facts keep their keys",
			decisions: []candidate.Decision{planKeep(planCand("a", "one")), planKeep(planCand("b", "two"))},
			wantKeys:  []string{"a", "b"}, wantReuse: []bool{false, false},
		},
		{
			name:      "an alike memory lends its key",
			decisions: []candidate.Decision{planKeep(planCand("health.nut_allergy", "Has a peanut allergy"))},
			n:         candidate.Neighbourhood{Existing: []memory.Memory{allergy}, Alike: [][]float64{{0.9}}},
			wantKeys:  []string{"allergy.peanuts"}, wantReuse: []bool{true},
		},
		{
			name:      "below the threshold it is a new memory",
			decisions: []candidate.Decision{planKeep(planCand("health.nut_allergy", "Has a peanut allergy"))},
			n:         candidate.Neighbourhood{Existing: []memory.Memory{allergy}, Alike: [][]float64{{0.81}}},
			wantKeys:  []string{"health.nut_allergy"}, wantReuse: []bool{false},
		},
		{
			name:      "a candidate alike one written earlier in the run takes its key",
			decisions: []candidate.Decision{planKeep(planCand("pet.dog", "Has a dog named Rex")), planKeep(planCand("pets.dog", "Owns a dog called Rex"))},
			n:         candidate.Neighbourhood{Among: [][]float64{{1, 0.95}, {0.95, 1}}},
			wantKeys:  []string{"pet.dog", "pet.dog"}, wantReuse: []bool{false, true},
		},
		{
			name: "drops, the target key, the boundaries and the write limit",
			decisions: []candidate.Decision{
				{Candidate: planCand("x", "dropped"), Verdict: candidate.VerdictDrop},
				{Candidate: planCand("draft", "Likes tea"), Verdict: candidate.VerdictReuseKey, TargetKey: memory.MustParseKey("drink.likes")},
				planKeep(planCand("weather-date_2026-12-01", "Sunny today")),
				planKeep(planCand("c", "three")),
				planKeep(planCand("d", "over the limit")),
			},
			wantKeys: []string{"drink.likes", "c"}, wantReuse: []bool{false, false},
			dropped: []string{candidate.ReasonRefinedAway, string(candidate.ReasonNoiseKey)}, deferred: []int{4},
		},
		{
			name: "the limit is per message: one message's many facts do not crowd out another's",
			decisions: []candidate.Decision{
				planKeep(planFrom("m1", "a", "one", 3)), planKeep(planFrom("m1", "b", "two", 3)), planKeep(planFrom("m1", "c", "three", 3)),
				planKeep(planFrom("m2", "d", "four", 3)),
			},
			wantKeys: []string{"a", "b", "d"}, wantReuse: []bool{false, false, false}, deferred: []int{2},
		},
		{
			name: "most important first: a health constraint never loses to a name",
			decisions: []candidate.Decision{
				planKeep(planFrom("m1", "name", "User's name is Bob", 4)), planKeep(planFrom("m1", "home.city", "Lives in Oslo", 3)),
				planKeep(planFrom("m1", "health.diabetes", "Has type 2 diabetes", 5)),
			},
			wantKeys: []string{"health.diabetes", "name"}, wantReuse: []bool{false, false}, deferred: []int{1},
		},
		{
			name: "candidates of one key keep their order and the key's highest importance",
			decisions: []candidate.Decision{
				planKeep(planFrom("m1", "name", "User's name is Bob", 4)),
				planKeep(candidate.Candidate{Op: candidate.OpDelete, Type: memory.TypeFact, Key: "diet", Content: "No longer vegan", Importance: 3, Confidence: 0.9, SourceMessageID: "m1"}),
				planKeep(planFrom("m1", "diet", "Is vegetarian", 5)),
			},
			wantKeys: []string{"diet", "diet"}, wantReuse: []bool{false, false}, deferred: []int{0},
		},
		{
			name:      "restating a live memory does not count against the limit",
			decisions: []candidate.Decision{planKeep(planFrom("m1", "allergy.peanuts", "Allergic to peanuts", 5)), planKeep(planFrom("m1", "a", "one", 3)), planKeep(planFrom("m1", "b", "two", 3))},
			n:         candidate.Neighbourhood{Existing: []memory.Memory{allergy}, Alike: [][]float64{{1}, {0}, {0}}},
			wantKeys:  []string{"allergy.peanuts", "a", "b"}, wantReuse: []bool{false, false, false},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			plan := policy.PlanWrites(tt.decisions, tt.n, planNow)
			var keys []string
			var reused []bool
			for _, w := range plan.Writes {
				keys = append(keys, w.Key.String())
				reused = append(reused, w.Reused)
				if w.Candidate.Key != w.Key.String() {
					t.Errorf("write %d: candidate key %q, written under %q", w.Decision, w.Candidate.Key, w.Key)
				}
			}
			if !slices.Equal(keys, tt.wantKeys) || !slices.Equal(reused, tt.wantReuse) {
				t.Errorf("writes %v reused %v, want %v %v", keys, reused, tt.wantKeys, tt.wantReuse)
			}
			if !slices.Equal(plan.Dropped, tt.dropped) {
				t.Errorf("dropped %v, want %v", plan.Dropped, tt.dropped)
			}
			if !slices.Equal(plan.Deferred, tt.deferred) {
				t.Errorf("deferred %v, want %v", plan.Deferred, tt.deferred)
			}
		})
	}
}

func TestPlanMerges(t *testing.T) {
	t.Parallel()
	policy := candidate.UpsertPolicy{MaxWrites: 6, DuplicateSimilarity: 0.82, MergeSimilarity: 0.9}
	written := planStored(t, "diet", "Vegetarian for ten years", true)
	copyA := planStored(t, "food.diet", "Vegetarian for 10 years", true)
	copyB := planStored(t, "eats", "vegetarian for ten years.", true)
	other := planStored(t, "music", "Likes jazz", true)
	live := []candidate.Stored{{Memory: written, Writer: 0, Existing: -1}, {Memory: copyA, Writer: -1, Existing: 0},
		{Memory: copyB, Writer: -1, Existing: 1}, {Memory: other, Writer: -1, Existing: 2}}
	tests := []struct {
		name string
		n    candidate.Neighbourhood
		want []candidate.Merge
	}{
		{"by the candidate's vector scores", candidate.Neighbourhood{Alike: [][]float64{{0.93, 0.2, 0.1}}},
			[]candidate.Merge{{Survivor: written.Key(), Copy: copyB.Key()}, {Survivor: written.Key(), Copy: copyA.Key()}}},
		{"equal content folds whatever the scores", candidate.Neighbourhood{Alike: [][]float64{{0.5, 0.2, 0.1}}},
			[]candidate.Merge{{Survivor: written.Key(), Copy: copyB.Key()}}},
		{"lexically, by the memories' contents", candidate.Neighbourhood{Lexical: true},
			[]candidate.Merge{{Survivor: written.Key(), Copy: copyB.Key()}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			got := policy.PlanMerges([]memory.Key{written.Key()}, live, tt.n)
			if !slices.Equal(got, tt.want) {
				t.Errorf("merges %v, want %v", got, tt.want)
			}
		})
	}
}
