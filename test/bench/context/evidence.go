package main

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"time"

	"engram/adapters/rules"
	"engram/app/contextbuild"
	"engram/app/extraction"
	"engram/app/sessions"
	"engram/domain/candidate"
	"engram/domain/memory"
	"engram/domain/session"
	"engram/test/fakeclock"
	"engram/test/locomodata"
)

// runEvidence records the LoCoMo dev conversations through record_exchange,
// extracts and indexes them, and asks every question through the context call of
// a new session at each budget.
//
// Pairing: LoCoMo turns alternate between the two speakers. In each session the
// speaker who opens it is the user and the other the assistant; turns are paired
// in order (user, assistant), and a session that ends on its opener gets "…" as
// the last answer. Each message is the turn as the protocol writes it, "Speaker:
// text [image: caption]", so the speaker's name is in the text (record_exchange has
// no name field). Each session's exchanges are recorded at the session's date (the
// clock is set to it), the questions a day after the conversation's last session.
func runEvidence(c config) error {
	ctx := context.Background()
	convs, err := locomodata.Load(filepath.Join(c.data, "locomo", "locomo_dev.json"))
	if err != nil {
		return fmt.Errorf("LoCoMo (-data): %w", err)
	}
	var budgets []int
	for _, b := range strings.Split(c.budgets, ",") {
		n, err := strconv.Atoi(strings.TrimSpace(b))
		if err != nil {
			return fmt.Errorf("-budgets: %w", err)
		}
		budgets = append(budgets, n)
	}
	dir, err := os.MkdirTemp("", "engram-bench-evidence-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(dir)
	clk := fakeclock.New(convs[0].Turns[0].At)
	r, err := newRig(ctx, rigOptions{dir: dir, clock: clk, mode: c.retrieve})
	if err != nil {
		return err
	}
	defer r.Close()

	start := time.Now()
	history := map[string]int{}
	var last time.Time
	for _, conv := range convs {
		n, err := record(ctx, r, clk, conv)
		if err != nil {
			return err
		}
		history[conv.ID] = n
		if at := conv.Turns[len(conv.Turns)-1].At; at.After(last) {
			last = at
		}
	}
	recorded := time.Since(start)
	start = time.Now()
	extracted, err := extract(ctx, r, clk, last.Add(time.Hour))
	if err != nil {
		return err
	}
	if err := r.index(ctx); err != nil {
		return err
	}
	fmt.Printf("recorded %d conversations in %s; extraction (rules) wrote %d memories; extracted and indexed in %s\n",
		len(convs), recorded.Round(time.Millisecond), extracted, time.Since(start).Round(time.Millisecond))

	results := map[int]*tally{}
	for _, b := range budgets {
		results[b] = newTally()
	}
	for _, conv := range convs {
		clk.Set(conv.Turns[len(conv.Turns)-1].At.Add(24 * time.Hour))
		turns := map[string]string{}
		for _, t := range conv.Turns {
			turns[t.ID] = normalised(t.Text())
		}
		scope := memory.Scope{Tenant: "locomo", User: conv.ID}
		for qi, q := range conv.Questions {
			for _, b := range budgets {
				res, err := r.context.Build(ctx, contextbuild.Request{Scope: scope, Query: q.Text, FlowID: "questions",
					SessionID: fmt.Sprintf("question-%d", qi), BudgetChars: b})
				if err != nil {
					return fmt.Errorf("%s question %d: %w", conv.ID, qi, err)
				}
				prompt := normalised(res.Prompt)
				reached := 0
				for _, id := range q.Evidence {
					if strings.Contains(prompt, turns[id]) {
						reached++
					}
				}
				results[b].add(q.Category, reached, len(q.Evidence), res.InjectedChars)
			}
		}
	}
	report(convs, history, budgets, results)
	return nil
}

// record writes one conversation's sessions as sessions and returns the size of
// its whole history (every turn's text) in characters.
func record(ctx context.Context, r *rig, clk *fakeclock.Clock, conv locomodata.Conversation) (int, error) {
	scope := memory.Scope{Tenant: "locomo", User: conv.ID}
	bySession := map[int][]locomodata.Turn{}
	var order []int
	chars := 0
	for _, t := range conv.Turns {
		if _, ok := bySession[t.Session]; !ok {
			order = append(order, t.Session)
		}
		bySession[t.Session] = append(bySession[t.Session], t)
		chars += len([]rune(t.Text()))
	}
	for _, s := range order {
		turns := bySession[s]
		for i := 0; i < len(turns); i += 2 {
			answer := "…"
			if i+1 < len(turns) {
				answer = turns[i+1].Text()
			}
			clk.Set(turns[i].At)
			_, err := r.sessions.Record(ctx, sessions.Record{Scope: scope, SessionID: "D" + strconv.Itoa(s), FlowID: "locomo",
				Exchange: session.ExchangeInput{ExchangeID: turns[i].ID, UserMessage: turns[i].Text(), AssistantMessage: answer}})
			if err != nil {
				return 0, fmt.Errorf("%s %s: %w", conv.ID, turns[i].ID, err)
			}
		}
	}
	return chars, nil
}

// extract runs the worker role's extraction (the offline rules) over every
// recorded user message, at now.
func extract(ctx context.Context, r *rig, clk *fakeclock.Clock, now time.Time) (int, error) {
	clk.Set(now)
	p := extraction.New(extraction.Deps{
		Extractor: rules.NewExtractor(rules.ExtractorOptions{}), Refiner: rules.NewRefiner(rules.RefinerOptions{}),
		Memories: r.memories, Messages: r.messages, Clock: clk, IDs: r.ids, Summaries: sessions.Summaries{Store: r.store},
	}, extraction.Options{Boundaries: candidate.Boundaries{MinConfidence: 0.75}})
	runner := extraction.NewRunner(r.messages, p, clk, extraction.RunnerOptions{Worker: "bench", Lease: time.Hour, ScanEnabled: true})
	for {
		n, err := runner.Tick(ctx, true)
		if err != nil {
			return 0, err
		}
		if n == 0 {
			break
		}
	}
	stats, err := r.messages.Stats(ctx, now)
	if err != nil {
		return 0, err
	}
	if stats.ByStatus["PENDING"]+stats.ByStatus["FAILED"] > 0 {
		return 0, fmt.Errorf("messages left unprocessed: %v", stats.ByStatus)
	}
	users, err := r.memories.UsersAfter(ctx, "locomo", "", 100)
	if err != nil {
		return 0, err
	}
	act, err := r.memories.Activity(ctx, "locomo", users)
	if err != nil {
		return 0, err
	}
	total := 0
	for _, a := range act {
		total += int(a.Count)
	}
	return total, nil
}

// normalised is text as it is compared with the block: quote marks and
// look-alike brackets out, whitespace collapsed (the block quotes a turn's lines
// after "> " and neutralises brackets).
func normalised(s string) string {
	s = strings.Map(func(r rune) rune {
		if strings.ContainsRune("‹›［］[]<>|¦", r) {
			return -1
		}
		return r
	}, s)
	return strings.Join(strings.Fields(s), " ")
}

// tally is one budget's results.
type tally struct {
	byCat map[int]*catTally
	all   catTally
}

type catTally struct {
	questions, reachedEvidence, evidence, anyReached int
	shareSum                                         float64
	chars                                            int
}

func newTally() *tally { return &tally{byCat: map[int]*catTally{}} }

func (t *tally) add(cat, reached, evidence, chars int) {
	if t.byCat[cat] == nil {
		t.byCat[cat] = &catTally{}
	}
	for _, c := range []*catTally{t.byCat[cat], &t.all} {
		c.questions++
		c.reachedEvidence += reached
		c.evidence += evidence
		c.shareSum += float64(reached) / float64(evidence)
		c.chars += chars
		if reached > 0 {
			c.anyReached++
		}
	}
}

func report(convs []locomodata.Conversation, history map[string]int, budgets []int, results map[int]*tally) {
	total := 0
	ids := make([]string, 0, len(history))
	for id, n := range history {
		total += n
		ids = append(ids, id)
	}
	sort.Strings(ids)
	fmt.Printf("\nwhole history per conversation: %d characters on average (", total/len(history))
	for i, id := range ids {
		if i > 0 {
			fmt.Print(", ")
		}
		fmt.Printf("%s %d", id, history[id])
	}
	fmt.Println(")")
	fmt.Printf("\n%-22s", "category (questions)")
	for _, b := range budgets {
		fmt.Printf(" | %-28s", fmt.Sprintf("budget %d", b))
	}
	fmt.Printf("\n%-22s", "")
	for range budgets {
		fmt.Printf(" | %-28s", "pooled / per question / any")
	}
	fmt.Println()
	row := func(name string, pick func(*tally) *catTally) {
		fmt.Printf("%-22s", name)
		for _, b := range budgets {
			c := pick(results[b])
			fmt.Printf(" | %-28s", fmt.Sprintf("%.3f / %.3f / %.3f", float64(c.reachedEvidence)/float64(c.evidence),
				c.shareSum/float64(c.questions), float64(c.anyReached)/float64(c.questions)))
		}
		fmt.Println()
	}
	for cat := 1; cat <= 4; cat++ {
		row(fmt.Sprintf("%d %s (%d)", cat, locomodata.CategoryNames[cat], results[budgets[0]].byCat[cat].questions), func(t *tally) *catTally { return t.byCat[cat] })
	}
	row(fmt.Sprintf("all (%d)", results[budgets[0]].all.questions), func(t *tally) *catTally { return &t.all })
	fmt.Printf("%-22s", "injected chars")
	for _, b := range budgets {
		a := results[b].all
		fmt.Printf(" | %-28s", fmt.Sprintf("%d on average", a.chars/a.questions))
	}
	fmt.Println()
	_ = convs
}
