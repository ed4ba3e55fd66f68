package rules

import (
	"context"
	"strings"
	"testing"
	"unicode/utf8"

	"engram/domain/conversation"
	"engram/domain/session"
	"engram/ports"
)

func turn(pairs ...string) []session.Message {
	var out []session.Message
	for i, text := range pairs {
		role := conversation.RoleUser
		if i%2 == 1 {
			role = conversation.RoleAssistant
		}
		out = append(out, session.Message{Role: role, Content: text})
	}
	return out
}

func TestSummarizer_keepsSentencesWithNamesNumbersDatesAndDecisions(t *testing.T) {
	t.Parallel()
	s := NewSummarizer(SummarizerOptions{})
	cases := map[string]struct {
		in       ports.SummaryInput
		keep     []string
		drop     []string
		language string
	}{
		"english": {
			in: ports.SummaryInput{Messages: turn(
				"Hi there!", "Hello! How can I help?",
				"I need the Q3 report for Maria by Friday.", "Sure. I will draft it tonight.",
				"Thanks, that's great.", "You're welcome!",
				"We decided to drop the Berlin trip.", "Okay, noted.",
			)},
			keep: []string{"User: I need the Q3 report for Maria by Friday.", "I will draft it tonight.", "We decided to drop the Berlin trip."},
			drop: []string{"Hi there", "How can I help", "Thanks", "welcome", "noted"},
		},
		"chinese": {
			in: ports.SummaryInput{Messages: turn(
				"你好", "你好！有什么可以帮你？",
				"我叫小王，下周三要交季度报告。", "好的，我帮你列个提纲。",
				"谢谢", "不客气。",
				"我们决定预算控制在5万以内。", "明白。",
			)},
			keep:     []string{"用户：我叫小王，", "下周三要交季度报告。", "我们决定预算控制在5万以内。"},
			drop:     []string{"你好", "谢谢", "不客气", "明白"},
			language: "zh",
		},
		"the previous summary stays": {
			in: ports.SummaryInput{Previous: "User is allergic to peanuts. The assistant suggested Thai food.",
				Messages: turn("Book it for 7pm on Saturday.", "Booked a table for two at 7pm.")},
			keep: []string{"User is allergic to peanuts.", "The assistant suggested Thai food.", "User: Book it for 7pm on Saturday.", "Assistant: Booked a table for two at 7pm."},
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			got, usage, err := s.Summarize(context.Background(), tc.in)
			if err != nil || usage.Calls != 0 {
				t.Fatalf("%q, %+v, %v", got, usage, err)
			}
			for _, k := range tc.keep {
				if !strings.Contains(got, k) {
					t.Errorf("lost %q:\n%s", k, got)
				}
			}
			for _, d := range tc.drop {
				if strings.Contains(got, d) {
					t.Errorf("kept %q:\n%s", d, got)
				}
			}
			again, _, _ := s.Summarize(context.Background(), tc.in)
			if again != got {
				t.Errorf("not deterministic:\n%s\n%s", got, again)
			}
		})
	}
}

func TestSummarizer_staysWithinTheBudgetAndPrefersNewerEvidence(t *testing.T) {
	t.Parallel()
	s := NewSummarizer(SummarizerOptions{Budget: 30})
	var msgs []string
	for i := range 20 {
		msgs = append(msgs, "On Monday we decided to ship version "+string(rune('a'+i))+" at 9am.", "Okay.")
	}
	got, _, err := s.Summarize(context.Background(), ports.SummaryInput{Messages: turn(msgs...)})
	if err != nil {
		t.Fatal(err)
	}
	if n := len(strings.Fields(got)); n > 30 || n == 0 {
		t.Fatalf("%d words:\n%s", n, got)
	}
	if !strings.Contains(got, "version t") || strings.Contains(got, "version a ") {
		t.Errorf("the budget kept older evidence over newer:\n%s", got)
	}
	zh := NewSummarizer(SummarizerOptions{Budget: 40})
	var zmsgs []string
	for range 10 {
		zmsgs = append(zmsgs, "我们决定下周一上午9点开会讨论预算。", "好的。")
	}
	out, _, _ := zh.Summarize(context.Background(), ports.SummaryInput{Messages: turn(zmsgs...)})
	if n := utf8.RuneCountInString(out); n > 40 || n == 0 {
		t.Errorf("%d characters: %s", n, out)
	}
}

func TestSummarizer_neverReturnsAnEmptySummaryForText(t *testing.T) {
	t.Parallel()
	s := NewSummarizer(SummarizerOptions{})
	got, _, err := s.Summarize(context.Background(), ports.SummaryInput{Messages: turn("hi", "hello")})
	if err != nil || got != "User: hi" {
		t.Errorf("small talk only: %q, %v", got, err)
	}
	got, _, _ = s.Summarize(context.Background(), ports.SummaryInput{Previous: "User lives in Wuhan.", Messages: turn("ok", "ok")})
	if got != "User lives in Wuhan." {
		t.Errorf("the previous summary was not kept: %q", got)
	}
	got, _, _ = s.Summarize(context.Background(), ports.SummaryInput{Previous: "kept"})
	if got != "kept" {
		t.Errorf("no messages: %q", got)
	}
}

func TestSplitSentences_keepsDecimalsAndAbbreviationsWhole(t *testing.T) {
	t.Parallel()
	got := splitSentences("Version 3.5 ships e.g. tomorrow. 好的。明天见！\nNew line")
	want := []string{"Version 3.5 ships e.g. tomorrow.", "好的。", "明天见！", "New line"}
	if strings.Join(got, "|") != strings.Join(want, "|") {
		t.Errorf("%q", got)
	}
}
