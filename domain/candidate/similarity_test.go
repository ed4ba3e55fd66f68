package candidate_test

import (
	"regexp"
	"testing"

	"engram/domain/candidate"
	"engram/domain/memory"
)

func TestSimilarity(t *testing.T) {
	t.Parallel()
	cases := []struct {
		a, b     string
		min, max float64
	}{
		{"User likes jazz.", "I like jazz", 1, 1},
		{"User is allergic to peanuts.", "user is ALLERGIC to peanut", 1, 1},
		{"User is allergic to peanuts.", "User is allergic to peanuts and shellfish.", 0.8, 0.82},
		{"User lives in Berlin.", "User lives in Munich.", 0, 0.6},
		{"User likes jazz.", "User likes rock.", 0, 0.1},
		{"用户喜欢川菜", "用户喜欢吃川菜", 0.7, 0.9},
		{"用户对花生过敏", "我对花生过敏", 1, 1},
		{"用户住在武汉", "用户喜欢川菜", 0, 0.1},
		{"Sichuan food", "川菜", 0, 0},
		{"", "anything", 0, 0},
		{"the of and", "the of and", 0, 0}, // stop words only: nothing to compare
	}
	for _, tc := range cases {
		got := candidate.Similarity(tc.a, tc.b)
		if got < tc.min-1e-9 || got > tc.max+1e-9 {
			t.Errorf("Similarity(%q, %q) = %.3f, want in [%.2f, %.2f]", tc.a, tc.b, got, tc.min, tc.max)
		}
		if back := candidate.Similarity(tc.b, tc.a); back != got {
			t.Errorf("Similarity is not symmetric for %q, %q: %.3f vs %.3f", tc.a, tc.b, got, back)
		}
	}
}

func TestSameContent(t *testing.T) {
	t.Parallel()
	if !candidate.SameContent("User likes  Jazz.", "user likes jazz") {
		t.Error("case, spacing and final period should not matter")
	}
	if !candidate.SameContent("用户喜欢川菜。", "用户喜欢川菜") {
		t.Error("Chinese final punctuation should not matter")
	}
	if candidate.SameContent("User likes jazz.", "User likes rock.") {
		t.Error("different words are different content")
	}
}

func TestGrounded(t *testing.T) {
	t.Parallel()
	user := []string{"Please remember that I am allergic to peanuts.", "I can't stand cilantro."}
	userZH := []string{"记住，以后都用中文回复我。", "我对花生过敏", "好的，谢谢你的推荐，我会去看一看。"}
	cases := []struct {
		content string
		texts   []string
		want    bool
	}{
		{"User is allergic to peanuts.", user, true},
		{"User dislikes cilantro.", user, true},        // one of two terms paraphrased
		{"User lives in Berlin.", user, false},         // nothing the user said
		{"User likes The Little Prince.", user, false}, // the assistant's recommendation
		{"用户要求以后都用中文回复。", userZH, true},
		{"用户对花生过敏。", userZH, true},
		{"用户喜欢《小王子》和《傲慢与偏见》。", userZH, false},
		{"User wants replies in Chinese.", userZH, true}, // another script: cannot judge
	}
	for _, tc := range cases {
		c := candidate.Candidate{Op: candidate.OpAdd, Type: memory.TypeFact, Key: "k", Content: tc.content}
		if got := candidate.Grounded(c, tc.texts); got != tc.want {
			t.Errorf("Grounded(%q) = %v, want %v (%+v)", tc.content, got, tc.want, candidate.Ground(tc.content, tc.texts))
		}
	}
	if !candidate.Grounded(candidate.Candidate{Op: candidate.OpDelete, Key: "diet"}, nil) {
		t.Error("a deletion needs no grounding")
	}
	if g := candidate.Ground("User wants replies in Chinese.", userZH); g.Judgable {
		t.Errorf("English content against Chinese messages should not be judgable: %+v", g)
	}
}

func TestSlugAndSuggestKey(t *testing.T) {
	t.Parallel()
	keyRe := regexp.MustCompile(`^[a-z0-9_.]+$`)
	cases := []struct {
		typ     memory.Type
		content string
		want    string
	}{
		{memory.TypePreference, "User likes jazz.", "pref.jazz"},
		{memory.TypeGoal, "Pass the JLPT N1 by the end of the year", "goal.pass_jlpt_n1_end"},
		{memory.TypeProject, "用户正在开发 PAI 项目", "project.pai"},
		{memory.TypeConstraint, "Answer in English.", "rule.answer_english"},
	}
	for _, tc := range cases {
		if got := candidate.SuggestKey(tc.typ, tc.content); got != tc.want {
			t.Errorf("SuggestKey(%s, %q) = %q, want %q", tc.typ, tc.content, got, tc.want)
		}
	}
	zh := candidate.SuggestKey(memory.TypePreference, "用户喜欢川菜")
	if !keyRe.MatchString(zh) || zh != candidate.SuggestKey(memory.TypePreference, " 用户喜欢川菜。") {
		t.Errorf("Chinese content must give a stable ASCII key, got %q", zh)
	}
	if zh == candidate.SuggestKey(memory.TypePreference, "用户喜欢粤菜") {
		t.Error("different Chinese content gave the same hashed key")
	}
	if k, err := memory.ParseKey(zh); err != nil || k.String() != zh {
		t.Errorf("suggested key %q does not survive ParseKey: %v, %v", zh, k, err)
	}
}
