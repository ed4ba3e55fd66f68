package llm

import (
	"context"
	"errors"
	"strings"
	"testing"

	"engram/domain/candidate"
	"engram/domain/memory"
	"engram/ports"
	"engram/test/fakellm"
)

func existingMemory(t *testing.T, key, typ, content string) memory.Memory {
	t.Helper()
	d, err := memory.ParseDraft(memory.DraftInput{Type: typ, Content: content}, memory.Source{Channel: memory.ChannelExtraction})
	if err != nil {
		t.Fatal(err)
	}
	m, err := memory.New("id-"+key, memory.Scope{Tenant: "t1", User: "u1"}, memory.MustParseKey(key), d, memory.Policy{}, now)
	if err != nil {
		t.Fatal(err)
	}
	return m
}

func cand(key, typ, content string) candidate.Candidate {
	return candidate.Candidate{Op: candidate.OpAdd, Type: memory.Type(typ), Key: key, Content: content,
		Importance: 3, Confidence: 0.9, SourceMessageID: "m1"}
}

func refineInput(t *testing.T, cands ...candidate.Candidate) ports.RefineInput {
	return ports.RefineInput{
		Scope:      memory.Scope{Tenant: "t1", User: "u1"},
		Candidates: cands,
		Existing: []memory.Memory{
			existingMemory(t, "home.city", "fact", "用户常住武汉"),
			existingMemory(t, "food.likes", "preference", "用户喜欢川菜"),
		},
		Now: now,
	}
}

func newTestRefiner(t *testing.T, srv *fakellm.Server) *Refiner {
	t.Helper()
	c, _ := newTestClient(t, srv, Options{})
	return NewRefiner(c, RefinerOptions{})
}

func TestRefine_oneDecisionPerCandidate(t *testing.T) {
	t.Parallel()
	srv := fakellm.New(t)
	srv.EnqueueChat(fakellm.Answer(`{"decisions":[
		{"index":0,"verdict":"reuse_key","target_key":"home.city","content":"用户常住上海（从武汉搬来）","reason":"new value of the home city"},
		{"index":1,"verdict":"merge","target_key":"Food.Likes","content":"用户喜欢川菜和粤菜","reason":"adds a cuisine"},
		{"index":2,"verdict":"drop","target_key":"","content":"","reason":"already known"},
		{"index":"3","verdict":"Keep","target_key":"","content":"","reason":"new"}]}`).WithUsage(400, 90))
	r := newTestRefiner(t, srv)
	in := refineInput(t,
		cand("residence.city", "fact", "用户搬到了上海"),
		cand("food.cuisine", "preference", "用户也喜欢粤菜"),
		cand("home.city", "fact", "用户住在武汉"),
		cand("reading.genre", "preference", "用户喜欢读科幻小说"),
	)
	got, usage, err := r.Refine(context.Background(), in)
	if err != nil {
		t.Fatal(err)
	}
	want := []candidate.Decision{
		{Candidate: withContent(in.Candidates[0], "用户常住上海（从武汉搬来）"), Verdict: candidate.VerdictReuseKey, TargetKey: memory.MustParseKey("home.city"), Reason: "new value of the home city"},
		{Candidate: withContent(in.Candidates[1], "用户喜欢川菜和粤菜"), Verdict: candidate.VerdictMerge, TargetKey: memory.MustParseKey("food.likes"), Reason: "adds a cuisine"},
		{Candidate: in.Candidates[2], Verdict: candidate.VerdictDrop, Reason: "already known"},
		{Candidate: in.Candidates[3], Verdict: candidate.VerdictKeep, Reason: "new"},
	}
	if len(got) != len(want) {
		t.Fatalf("got %d decisions", len(got))
	}
	for i := range want {
		if got[i] != want[i] {
			t.Errorf("decision %d = %+v\nwant %+v", i, got[i], want[i])
		}
	}
	if usage != (ports.LLMUsage{Calls: 1, PromptTokens: 400, CompletionTokens: 90}) {
		t.Errorf("usage %+v", usage)
	}
	user := srv.ChatRequests()[0].Text("user")
	for _, line := range []string{
		`{"key":"home.city","memory_type":"fact","content":"用户常住武汉"}`,
		`{"index":3,"op":"ADD","memory_type":"preference","key":"reading.genre","content":"用户喜欢读科幻小说","importance":3,"confidence":0.9,"ttl_days":0}`,
	} {
		if !strings.Contains(user, line) {
			t.Errorf("prompt lacks %s:\n%s", line, user)
		}
	}
}

func withContent(c candidate.Candidate, content string) candidate.Candidate {
	c.Content = content
	return c
}

func TestRefine_unusableDecisionsLeaveTheCandidateKept(t *testing.T) {
	t.Parallel()
	srv := fakellm.New(t)
	srv.EnqueueChat(fakellm.Answer(`[
		{"index":0,"verdict":"merge","target_key":"no.such.key","content":"x","reason":"?"},
		{"index":1,"verdict":"archive","reason":"?"},
		{"index":2,"verdict":"merge","target_key":"food.likes","content":"` + strings.Repeat("长", 1001) + `"},
		{"index":7,"verdict":"drop"},
		{"verdict":"drop"},
		{"index":3,"verdict":"drop","reason":"first"},
		{"index":3,"verdict":"keep","reason":"second"},
		{"index":4,"verdict":"reuse_key"}
	]`))
	r := newTestRefiner(t, srv)
	in := refineInput(t, cand("a", "fact", "1"), cand("b", "fact", "2"), cand("c", "fact", "3"),
		cand("d", "fact", "4"), cand("e", "fact", "5"), cand("f", "fact", "6"))
	x, err := r.RefineDetailed(context.Background(), in)
	if err != nil {
		t.Fatal(err)
	}
	if len(x.Decisions) != len(in.Candidates) {
		t.Fatalf("%d decisions for %d candidates", len(x.Decisions), len(in.Candidates))
	}
	for i, d := range x.Decisions {
		wantVerdict := candidate.VerdictKeep
		if i == 3 {
			wantVerdict = candidate.VerdictDrop
		}
		if d.Verdict != wantVerdict || d.Candidate != in.Candidates[i] {
			t.Errorf("decision %d = %+v, want %s of the unchanged candidate", i, d, wantVerdict)
		}
	}
	if !strings.Contains(x.Decisions[5].Reason, "no usable decision") {
		t.Errorf("missing decision reason = %q", x.Decisions[5].Reason)
	}
	wantIgnored := []string{"not one of the existing memories", "archive", "at most 1000", "index 7", "index (missing)", "second decision", "reuse_key needs the target_key"}
	if len(x.Ignored) != len(wantIgnored) {
		t.Fatalf("ignored %v", x.Ignored)
	}
	for i, want := range wantIgnored {
		if !strings.Contains(x.Ignored[i].Reason, want) {
			t.Errorf("ignored %d = %v, want it to mention %q", i, x.Ignored[i], want)
		}
	}
}

func TestRefine_unreadableAnswerIsBadOutput(t *testing.T) {
	t.Parallel()
	srv := fakellm.New(t)
	srv.EnqueueChat(fakellm.Answer(`All candidates look fine to me.`))
	_, usage, err := newTestRefiner(t, srv).Refine(context.Background(), refineInput(t, cand("a", "fact", "1")))
	if !errors.Is(err, ErrBadOutput) || usage.Calls != 1 {
		t.Fatalf("err %v usage %+v", err, usage)
	}
}

func TestRefine_withoutCandidatesMakesNoCall(t *testing.T) {
	t.Parallel()
	srv := fakellm.New(t)
	got, usage, err := newTestRefiner(t, srv).Refine(context.Background(), refineInput(t))
	if err != nil || got != nil || usage.Calls != 0 || len(srv.Requests()) != 0 {
		t.Fatalf("got %v usage %+v err %v", got, usage, err)
	}
}

func TestRefine_endpointFailureIsUnavailable(t *testing.T) {
	t.Parallel()
	srv := fakellm.New(t)
	srv.EnqueueChat(fakellm.Fail(401, "Incorrect API key provided"))
	_, _, err := newTestRefiner(t, srv).Refine(context.Background(), refineInput(t, cand("a", "fact", "1")))
	if !errors.Is(err, ports.ErrUnavailable) || !errors.Is(err, ErrRejected) {
		t.Fatalf("err %v", err)
	}
}
