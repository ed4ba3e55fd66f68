package ingest

import (
	"context"
	"fmt"
	"testing"
	"time"

	"engram/adapters/rules"
	"engram/adapters/sqlstore"
	"engram/adapters/ulids"
	"engram/app/extraction"
	"engram/app/messages"
	"engram/domain/candidate"
	"engram/domain/conversation"
	"engram/domain/memory"
	"engram/ports"
	"engram/test/teststore"
)

// fixedExtractor stands in for the model at no cost: it proposes one candidate per
// trigger message, built from the message, so every later stage has work to do.
type fixedExtractor struct{}

func (fixedExtractor) Extract(_ context.Context, in ports.ExtractionInput) ([]candidate.Candidate, ports.LLMUsage, error) {
	out := make([]candidate.Candidate, 0, len(in.Messages))
	for _, m := range in.Messages {
		out = append(out, candidate.Candidate{Op: candidate.OpAdd, Type: memory.TypePreference,
			Key: candidate.SuggestKey(memory.TypePreference, m.Content), Content: "User says: " + m.Content,
			Importance: 3, Confidence: 0.9, SourceMessageID: m.ID})
	}
	return out, ports.LLMUsage{Calls: 1}, nil
}

type stepClock struct{ now time.Time }

func (c *stepClock) Now() time.Time { return c.now }

var hobbies = []string{"piano", "chess", "tennis", "jazz", "hiking", "sushi", "poetry", "rowing", "opera", "gardening"}

// BenchmarkPipelinePerMessage times the pipeline with the model taken out, on the
// embedded SQLite store: claim, prefilter, context read, screen, similar-memory
// lookup, refine (rules), upsert with duplicate and merge checks, and storing the
// outcome. Each conversation has two user messages (one a greeting the prefilter
// skips) and an assistant reply; 20 users, so memories accumulate and later runs
// compare against them. ns/msg is per user message.
func BenchmarkPipelinePerMessage(b *testing.B) {
	for _, extractor := range []string{"fixed", "rules"} {
		b.Run("extractor="+extractor, func(b *testing.B) {
			db := teststore.Open(b)
			mem, msgs := sqlstore.NewMemoryStore(db), sqlstore.NewMessageStore(db)
			clk := &stepClock{now: time.Date(2026, 11, 30, 9, 0, 0, 0, time.UTC)}
			ids := ulids.New()
			var ext ports.Extractor = fixedExtractor{}
			if extractor == "rules" {
				ext = rules.NewExtractor(rules.ExtractorOptions{})
			}
			p := extraction.New(extraction.Deps{Extractor: ext, Refiner: rules.NewRefiner(rules.RefinerOptions{}),
				Memories: mem, Messages: msgs, Clock: clk, IDs: ids}, extraction.Options{})
			runner := extraction.NewRunner(msgs, p, clk, extraction.RunnerOptions{Worker: "bench", Concurrency: 4})
			ingest := messages.New(msgs, clk, ids, messages.Options{})
			ctx := context.Background()
			for i := range b.N {
				user := memory.Scope{Tenant: "t", User: fmt.Sprintf("u%d", i%20)}
				hobby := hobbies[i%len(hobbies)]
				conv := fmt.Sprintf("c%d", i)
				_, err := ingest.PostBatch(ctx, messages.PostBatch{Scope: user, Messages: []conversation.Input{
					{ConversationID: conv, Role: "user", Content: "Hi there!"},
					{ConversationID: conv, Role: "assistant", Content: "Hello! What would you like to talk about today?"},
					{ConversationID: conv, Role: "user", Content: fmt.Sprintf("I really love %s, I have done it for %d years.", hobby, i%7+2)},
				}})
				if err != nil {
					b.Fatal(err)
				}
			}
			clk.now = clk.now.Add(time.Minute)
			b.ResetTimer()
			n, err := runner.Tick(ctx, false)
			b.StopTimer()
			if err != nil || n != 2*b.N {
				b.Fatalf("tick stored %d outcomes (%v), want %d", n, err, 2*b.N)
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(2*b.N), "ns/msg")
			b.ReportMetric(0, "ns/op")
		})
	}
}
