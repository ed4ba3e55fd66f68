package ingest

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"engram/adapters/llm"
	"engram/adapters/rules"
	"engram/adapters/ulids"
	"engram/app/extraction"
	"engram/app/messages"
	"engram/domain/conversation"
	"engram/domain/memory"
	"engram/ports"
	"engram/test/fakellm"
	"engram/test/memorybank"
	"engram/test/scriptedllm"
	"engram/test/teststore"
)

// bankRun is one pass of the pipeline over the traffic.
type bankRun struct {
	userMessages, skipped, processed, failed int
	modelCalls                               int
	memories, writes                         int
}

// replay posts the traffic and runs the worker. perTurn: the worker runs after
// every exchange (a live chat, the worst case for batching); otherwise after each
// day's conversation (an import, or a chat within the debounce).
func replay(b *testing.B, days []memorybank.Day, ext ports.Extractor, ref, fallback ports.Refiner, perTurn bool, calls func() int) bankRun {
	b.Helper()
	stores := teststore.New(b)
	mem, msgs := stores.Memories, stores.Messages
	clk := &stepClock{now: time.Date(2026, 11, 30, 9, 0, 0, 0, time.UTC)}
	ids := ulids.New()
	p := extraction.New(extraction.Deps{Extractor: ext, Refiner: ref, FallbackRefiner: fallback,
		Memories: mem, Messages: msgs, Clock: clk, IDs: ids}, extraction.Options{})
	runner := extraction.NewRunner(msgs, p, clk, extraction.RunnerOptions{Worker: "bench", Concurrency: 1})
	ingest := messages.New(msgs, clk, ids, messages.Options{Debounce: 12 * time.Second})
	ctx := context.Background()
	var run bankRun
	work := func() {
		clk.now = clk.now.Add(13 * time.Second)
		if _, err := runner.Tick(ctx, false); err != nil {
			b.Fatal(err)
		}
	}
	users := map[string]bool{}
	for _, d := range days {
		scope := memory.Scope{Tenant: "bank", User: d.User}
		users[d.User] = true
		var batch []conversation.Input
		for i, t := range d.Turns {
			conv := d.User + "/" + d.Date
			batch = append(batch,
				conversation.Input{ConversationID: conv, MessageID: fmt.Sprintf("%s/%d/u", conv, i), Role: "user", Content: t.Query},
				conversation.Input{ConversationID: conv, MessageID: fmt.Sprintf("%s/%d/a", conv, i), Role: "assistant", Content: t.Response})
			run.userMessages++
			if perTurn || i == len(d.Turns)-1 {
				if _, err := ingest.PostBatch(ctx, messages.PostBatch{Scope: scope, Messages: batch}); err != nil {
					b.Fatal(err)
				}
				batch = nil
				work()
			}
		}
	}
	for u := range users {
		scope := memory.Scope{Tenant: "bank", User: u}
		page, err := mem.List(ctx, scope, ports.MemoryQuery{Limit: 1000, Now: clk.Now()})
		if err != nil {
			b.Fatal(err)
		}
		run.memories += len(page.Items)
		all, _ := mem.List(ctx, scope, ports.MemoryQuery{Limit: 1000, IncludeInactive: true, Now: clk.Now()})
		for _, m := range all.Items {
			h, _ := mem.History(ctx, scope, m.Key())
			run.writes += len(h)
		}
	}
	stats, err := msgs.Stats(ctx, clk.Now())
	if err != nil {
		b.Fatal(err)
	}
	run.processed = int(stats.ByStatus[conversation.StatusProcessed])
	run.failed = int(stats.ByStatus[conversation.StatusFailed])
	run.skipped = int(stats.ByStatus[conversation.StatusSkipped]) - run.userMessages // assistant replies are SKIPPED too
	if pending := stats.ByStatus[conversation.StatusPending]; pending != 0 {
		b.Fatalf("%d messages left PENDING", pending)
	}
	if calls != nil {
		run.modelCalls = calls()
	}
	return run
}

// BenchmarkMemoryBank replays the MemoryBank conversations (English and Chinese,
// 15 users × 10 days each, user queries and assistant replies) and reports per
// language: the share of user messages the prefilter skips (no model call), model
// calls per processed user message against a fake model that finds nothing and
// against one that proposes what the rules find (so stage 2 runs too), per day
// and per turn, and memories (and write events) per 100 user messages with the
// rule extractor.
func BenchmarkMemoryBank(b *testing.B) {
	for _, file := range []string{"memory_bank_en.json", "memory_bank_cn.json"} {
		b.Run(strings.TrimSuffix(strings.TrimPrefix(file, "memory_bank_"), ".json"), func(b *testing.B) {
			days := memorybank.ForTest(b, file)
			for range b.N {
				ruleRefiner := rules.NewRefiner(rules.RefinerOptions{})
				r := replay(b, days, rules.NewExtractor(rules.ExtractorOptions{}), ruleRefiner, nil, false, nil)
				b.ReportMetric(100*float64(r.skipped)/float64(r.userMessages), "%skipped")
				b.ReportMetric(100*float64(r.memories)/float64(r.userMessages), "rules_memories/100msgs")
				b.ReportMetric(100*float64(r.writes)/float64(r.userMessages), "rules_events/100msgs")

				for _, mode := range []struct {
					name    string
					perTurn bool
					finds   bool
				}{{"empty_day", false, false}, {"empty_turn", true, false}, {"finds_day", false, true}, {"finds_turn", true, true}} {
					srv := fakellm.New(b)
					if mode.finds {
						srv.HandleChat(scriptedllm.Answer)
					} else {
						srv.HandleChat(func(fakellm.Request) fakellm.Reply { return fakellm.Answer(`{"candidates":[]}`) })
					}
					client, err := llm.NewClient(llm.Options{Provider: llm.ProviderOpenAI, BaseURL: srv.OpenAIBaseURL(), Model: "fake"})
					if err != nil {
						b.Fatal(err)
					}
					lr := replay(b, days, llm.NewExtractor(client, llm.ExtractorOptions{}), llm.NewRefiner(client, llm.RefinerOptions{}),
						ruleRefiner, mode.perTurn, func() int { return len(srv.ChatRequests()) })
					if lr.failed != 0 {
						b.Fatalf("%s: %d messages FAILED", mode.name, lr.failed)
					}
					b.ReportMetric(float64(lr.modelCalls)/float64(lr.processed), "calls/processed_"+mode.name)
					if mode.name == "empty_turn" {
						b.ReportMetric(float64(lr.modelCalls)/float64(lr.userMessages), "calls/user_msg_turn")
					}
				}
			}
		})
	}
}
