package llm

import (
	"context"
	"errors"
	"strings"
	"testing"
	"unicode/utf8"

	"engram/domain/conversation"
	"engram/domain/session"
	"engram/ports"
	"engram/test/fakellm"
)

func smsg(role conversation.Role, content string) session.Message {
	return session.Message{Role: role, Content: content}
}

func newTestSummarizer(t *testing.T, srv *fakellm.Server, opts SummarizerOptions) *Summarizer {
	t.Helper()
	c, _ := newTestClient(t, srv, Options{})
	return NewSummarizer(c, opts)
}

func TestSummarize_foldsNewMessagesIntoThePreviousSummary(t *testing.T) {
	t.Parallel()
	srv := fakellm.New(t)
	srv.EnqueueChat(fakellm.Answer("用户住在武汉，正在准备日语 N1；助手建议每天做一套真题，用户同意。").WithUsage(300, 40))
	s := newTestSummarizer(t, srv, SummarizerOptions{})
	got, usage, err := s.Summarize(context.Background(), ports.SummaryInput{Previous: "用户住在武汉。", Messages: []session.Message{
		smsg(conversation.RoleUser, "我在准备日语 N1"),
		smsg(conversation.RoleAssistant, "建议每天做一套真题"),
		smsg(conversation.RoleUser, "好的"),
	}})
	if err != nil || got != "用户住在武汉，正在准备日语 N1；助手建议每天做一套真题，用户同意。" || usage.Calls != 1 || usage.PromptTokens != 300 {
		t.Fatalf("got %q usage %+v err %v", got, usage, err)
	}
	r := srv.ChatRequests()[0]
	if r.ResponseFormat != "" {
		t.Errorf("a summary is plain text; response_format %q", r.ResponseFormat)
	}
	user := r.Text("user")
	for _, want := range []string{`PREVIOUS SUMMARY:` + "\n" + `"用户住在武汉。"`, `[2] assistant: "建议每天做一套真题"`, `[3] user: "好的"`} {
		if !strings.Contains(user, want) {
			t.Errorf("prompt lacks %s:\n%s", want, user)
		}
	}
}

func TestSummarize_cleansAndBoundsTheAnswer(t *testing.T) {
	t.Parallel()
	srv := fakellm.New(t)
	srv.EnqueueChat(
		fakellm.Answer("<think>short</think>\n```\nThe user lives in Wuhan.\n```"),
		fakellm.Answer(strings.Repeat("长", 1000)),
		fakellm.Answer("  "),
	)
	s := newTestSummarizer(t, srv, SummarizerOptions{MaxChars: 100})
	one := ports.SummaryInput{Messages: []session.Message{smsg(conversation.RoleUser, "hi")}}

	got, _, err := s.Summarize(context.Background(), one)
	if err != nil || got != "The user lives in Wuhan." {
		t.Fatalf("got %q err %v", got, err)
	}
	got, _, err = s.Summarize(context.Background(), one)
	if err != nil || utf8.RuneCountInString(got) != 800 {
		t.Fatalf("got %d characters err %v; want a runaway answer cut at 8 × MaxChars", utf8.RuneCountInString(got), err)
	}
	_, _, err = s.Summarize(context.Background(), one)
	if !errors.Is(err, ErrBadOutput) {
		t.Fatalf("empty summary: err %v", err)
	}
}

func TestSummarize_withoutMessagesKeepsThePreviousSummary(t *testing.T) {
	t.Parallel()
	srv := fakellm.New(t)
	got, usage, err := newTestSummarizer(t, srv, SummarizerOptions{}).Summarize(context.Background(), ports.SummaryInput{Previous: "old"})
	if err != nil || got != "old" || usage.Calls != 0 || len(srv.Requests()) != 0 {
		t.Fatalf("got %q usage %+v err %v", got, usage, err)
	}
}
