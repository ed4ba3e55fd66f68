package rules_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"engram/adapters/rules"
	"engram/domain/candidate"
	"engram/domain/memory"
	"engram/ports"
)

var (
	now   = time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)
	scope = memory.Scope{Tenant: "t1", User: "u1"}
)

func existing(t *testing.T, key string, typ memory.Type, content string) memory.Memory {
	t.Helper()
	k, err := memory.ParseKey(key)
	if err != nil {
		t.Fatal(err)
	}
	d := memory.Draft{Type: typ, Content: content, Importance: 3, Confidence: 0.9}
	m, err := memory.New("id-"+key, scope, k, d, memory.Policy{}, now.Add(-24*time.Hour))
	if err != nil {
		t.Fatal(err)
	}
	return m
}

func add(typ memory.Type, key, content string) candidate.Candidate {
	return candidate.Candidate{Op: candidate.OpAdd, Type: typ, Key: key, Content: content, Importance: 3, Confidence: 0.9, SourceMessageID: "m1"}
}

func TestRefine_decisions(t *testing.T) {
	t.Parallel()
	mems := []memory.Memory{
		existing(t, "allergy.peanuts", memory.TypeFact, "User is allergic to peanuts."),
		existing(t, "home.city", memory.TypeFact, "User lives in Berlin."),
		existing(t, "music.likes.jazz", memory.TypePreference, "User likes jazz."),
		existing(t, "food.likes.sichuan_food", memory.TypePreference, "用户喜欢川菜。"),
		existing(t, "notes.trip", memory.TypeFact, "User's trip notes:"),
	}
	deleted := existing(t, "diet", memory.TypeFact, "User is vegan.").Deactivate(memory.Source{}, now)
	mems = append(mems, deleted)

	cases := []struct {
		name      string
		c         candidate.Candidate
		verdict   candidate.Verdict
		targetKey memory.Key
		op        candidate.Op
		reason    string
	}{
		{"new memory is kept", add(memory.TypeFact, "work.place", "User works at Siemens."),
			candidate.VerdictKeep, memory.MustParseKey("work.place"), candidate.OpAdd, "new"},
		{"same key updates", add(memory.TypeFact, "home.city", "User lives in Munich."),
			candidate.VerdictKeep, memory.MustParseKey("home.city"), candidate.OpUpdate, "same key"},
		{"same key, un-normalised, updates", add(memory.TypeFact, "Home City", "User lives in Munich."),
			candidate.VerdictKeep, memory.MustParseKey("home-city"), candidate.OpAdd, "new"},
		{"exact duplicate is dropped", add(memory.TypeFact, "allergy.nuts", "user is allergic to peanuts"),
			candidate.VerdictDrop, memory.Key{}, candidate.OpAdd, "duplicate of existing memory allergy.peanuts"},
		{"Chinese duplicate is dropped", add(memory.TypePreference, "food.likes.x", "用户喜欢川菜"),
			candidate.VerdictDrop, memory.Key{}, candidate.OpAdd, "duplicate"},
		{"similar content reuses the key", add(memory.TypePreference, "interest.likes.jazz_music", "I like jazz"),
			candidate.VerdictReuseKey, memory.MustParseKey("music.likes.jazz"), candidate.OpUpdate, "reuse its key"},
		{"Chinese paraphrase reuses the key", add(memory.TypePreference, "food.likes.h1234", "用户非常喜欢川菜！"),
			candidate.VerdictReuseKey, memory.MustParseKey("food.likes.sichuan_food"), candidate.OpUpdate, "reuse"},
		{"dissimilar content is kept", add(memory.TypePreference, "music.likes.rock", "User likes rock."),
			candidate.VerdictKeep, memory.MustParseKey("music.likes.rock"), candidate.OpAdd, "new"},
		{"a deleted memory's key is written again", add(memory.TypeFact, "diet", "User is vegetarian."),
			candidate.VerdictKeep, memory.MustParseKey("diet"), candidate.OpUpdate, "same key"},
		{"append merges into the key", candidate.Candidate{Op: candidate.OpAppend, Type: memory.TypeFact, Key: "notes.trip", Content: "Bring the passport.", Confidence: 0.9},
			candidate.VerdictMerge, memory.MustParseKey("notes.trip"), candidate.OpUpdate, "append"},
		{"delete of a known key is kept", candidate.Candidate{Op: candidate.OpDelete, Key: "home.city"},
			candidate.VerdictKeep, memory.MustParseKey("home.city"), candidate.OpDelete, "delete"},
		{"delete of an unknown key is dropped", candidate.Candidate{Op: candidate.OpDelete, Key: "pet.dog"},
			candidate.VerdictDrop, memory.Key{}, candidate.OpDelete, "nothing to delete"},
		{"screened candidates are dropped", add(memory.TypeFact, "plan.trip", "User flies to Rome tomorrow."),
			candidate.VerdictDrop, memory.Key{}, candidate.OpAdd, "time_window"},
		{"noise keys are dropped", add(memory.TypeFact, "weather-date_2026_03_01", "Sunny and warm."),
			candidate.VerdictDrop, memory.Key{}, candidate.OpAdd, "noise_key"},
	}
	r := rules.NewRefiner(rules.RefinerOptions{})
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			got, usage, err := r.Refine(context.Background(), ports.RefineInput{Scope: scope, Candidates: []candidate.Candidate{tc.c}, Existing: mems, Now: now})
			if err != nil || len(got) != 1 {
				t.Fatalf("Refine = %v, %v", got, err)
			}
			if usage != (ports.LLMUsage{}) {
				t.Errorf("usage = %+v, want zero", usage)
			}
			d := got[0]
			if d.Verdict != tc.verdict || d.TargetKey != tc.targetKey || d.Candidate.Op != tc.op || !strings.Contains(d.Reason, tc.reason) {
				t.Fatalf("decision = {%s target %q op %s reason %q}, want {%s target %q op %s reason …%q…}",
					d.Verdict, d.TargetKey, d.Candidate.Op, d.Reason, tc.verdict, tc.targetKey, tc.op, tc.reason)
			}
			if d.Verdict == candidate.VerdictReuseKey && d.Candidate.Key != tc.targetKey.String() {
				t.Errorf("reused key not written into the candidate: %q", d.Candidate.Key)
			}
			if d.Verdict == candidate.VerdictMerge && !strings.HasPrefix(d.Candidate.Content, "User's trip notes:\n") {
				t.Errorf("merged content = %q", d.Candidate.Content)
			}
		})
	}
}

func TestRefine_batchDuplicatesAndOrder(t *testing.T) {
	t.Parallel()
	r := rules.NewRefiner(rules.RefinerOptions{})
	cs := []candidate.Candidate{
		add(memory.TypePreference, "music.likes.jazz", "User likes jazz."),
		add(memory.TypePreference, "interest.likes.jazz", "User likes jazz"),
		add(memory.TypeFact, "home.city", "User lives in Berlin."),
	}
	got, _, err := r.Refine(context.Background(), ports.RefineInput{Scope: scope, Candidates: cs, Now: now})
	if err != nil || len(got) != 3 {
		t.Fatalf("Refine = %v, %v", got, err)
	}
	if got[0].Verdict != candidate.VerdictKeep || got[1].Verdict != candidate.VerdictDrop || got[2].Verdict != candidate.VerdictKeep {
		t.Fatalf("verdicts = %s, %s, %s; want keep, drop (duplicate in batch), keep", got[0].Verdict, got[1].Verdict, got[2].Verdict)
	}
	if got[2].Candidate.Key != "home.city" {
		t.Errorf("decisions out of order: %+v", got[2])
	}
}

func TestRefine_thresholdFromOptions(t *testing.T) {
	t.Parallel()
	mems := []memory.Memory{existing(t, "allergy.peanuts", memory.TypeFact, "User is allergic to peanuts.")}
	c := add(memory.TypeFact, "allergy.peanuts_shellfish", "User is allergic to peanuts and shellfish.") // similarity ≈ 0.816
	in := ports.RefineInput{Scope: scope, Candidates: []candidate.Candidate{c}, Existing: mems, Now: now}

	got, _, _ := rules.NewRefiner(rules.RefinerOptions{}).Refine(context.Background(), in)
	if got[0].Verdict != candidate.VerdictKeep {
		t.Errorf("at the default 0.82 the 0.816-similar candidate should be kept, got %s", got[0].Verdict)
	}
	got, _, _ = rules.NewRefiner(rules.RefinerOptions{ReuseThreshold: 0.8}).Refine(context.Background(), in)
	if got[0].Verdict != candidate.VerdictReuseKey || got[0].TargetKey != memory.MustParseKey("allergy.peanuts") {
		t.Errorf("at 0.8 it should reuse allergy.peanuts, got %s %q", got[0].Verdict, got[0].TargetKey)
	}
}

func TestRefine_expiredMemoriesAreNotDuplicates(t *testing.T) {
	t.Parallel()
	k, _ := memory.ParseKey("music.likes.jazz")
	old, err := memory.New("id-old", scope, k, memory.Draft{Type: memory.TypePreference, Content: "User likes jazz.", Importance: 3, Confidence: 0.9, TTLDays: 1},
		memory.Policy{}, now.Add(-72*time.Hour))
	if err != nil {
		t.Fatal(err)
	}
	c := add(memory.TypePreference, "music.likes.jazz", "User likes jazz.")
	got, _, _ := rules.NewRefiner(rules.RefinerOptions{}).Refine(context.Background(),
		ports.RefineInput{Scope: scope, Candidates: []candidate.Candidate{c}, Existing: []memory.Memory{old}, Now: now})
	if got[0].Verdict != candidate.VerdictKeep || got[0].Candidate.Op != candidate.OpUpdate {
		t.Fatalf("an expired memory said again should be written (renewed) under its key, got %s %s: %s",
			got[0].Verdict, got[0].Candidate.Op, got[0].Reason)
	}
}

func TestRefine_cancelledContext(t *testing.T) {
	t.Parallel()
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, _, err := rules.NewRefiner(rules.RefinerOptions{}).Refine(ctx, ports.RefineInput{}); err == nil {
		t.Error("want the context's error")
	}
}
