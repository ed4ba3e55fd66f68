// Command cost measures what extraction costs in model calls and how fast it
// drains, black-box: it builds engram, runs `engram serve` with an
// OpenAI-compatible LLM and embedder that are an in-process scripted endpoint
// (every chat call takes -latency; see fake.go for how it answers), posts
// MemoryBank traffic over HTTP and counts what reaches the endpoint.
//
//	go run ./test/bench/cost                          # every scenario, embedded SQLite
//	go run ./test/bench/cost -scenarios burst -db "$ENGRAM_TEST_POSTGRES_DSN"
//	go run ./test/bench/cost -engram /tmp/engram-before    # another build, for a before/after
//
// Scenarios:
//
//	paced  -paced user turns (MemoryBank EN, in order) posted one at a time, each
//	       after the previous was extracted: calls per user message, time until the
//	       message is extracted and until its memory is searchable
//	burst  all MemoryBank EN traffic posted at once: time until every message is
//	       extracted, calls in flight, embedding inputs per message once the
//	       indexer is done
//	live   five users chatting faster than the debounce, one long conversation
//	       each, under several batching settings: calls per message against the
//	       wait until extraction (the LONG_TERM_MEMORY_BATCH_* trade-off)
//
// docs/BENCHMARKS.md "Extraction cost" holds the figures.
package main

import (
	"flag"
	"fmt"
	"log"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"engram/test/memorybank"
)

type options struct {
	data        string
	db          string
	latency     time.Duration
	debounce    float64
	concurrency int
	paced       int
	scenarios   []string
	dim         int
	engram      string
}

func main() {
	var (
		o         options
		scenarios string
	)
	flag.StringVar(&o.data, "data", "", "MemoryBank eval_data directory; empty: ../shared/datasets/memorybank next to the repository")
	flag.StringVar(&o.db, "db", "", "ENGRAM_DATABASE_URL (postgres://…); empty: SQLite in a temporary directory")
	flag.DurationVar(&o.latency, "latency", 300*time.Millisecond, "time the scripted model takes per chat call")
	flag.Float64Var(&o.debounce, "debounce", 1, "LONG_TERM_MEMORY_DEBOUNCE_SEC for paced and burst (the default 12 s adds its difference to every wait)")
	flag.IntVar(&o.concurrency, "concurrency", 8, "LONG_TERM_MEMORY_WORKER_CONCURRENCY")
	flag.IntVar(&o.paced, "paced", 60, "user turns of the paced scenario")
	flag.IntVar(&o.dim, "dim", 64, "MEMORY_EMBEDDING_DIM of the scripted embedder")
	flag.StringVar(&scenarios, "scenarios", "paced,burst,live", "scenarios to run, comma-separated")
	flag.StringVar(&o.engram, "engram", "", "an engram binary to measure instead of building this tree (e.g. an older commit's)")
	flag.Parse()
	o.scenarios = strings.Split(scenarios, ",")
	if err := run(o); err != nil {
		fmt.Fprintln(os.Stderr, "cost:", err)
		os.Exit(1)
	}
}

func run(o options) error {
	if o.data == "" {
		dir, err := memorybank.Dir()
		if err != nil {
			return err
		}
		o.data = dir
	}
	days, err := memorybank.Load(o.data, memorybank.English)
	if err != nil {
		return err
	}
	tmp, err := os.MkdirTemp("", "engram-bench-cost-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(tmp)
	defer dropScratch()
	bin := o.engram
	if bin == "" {
		if bin, err = build(tmp); err != nil {
			return err
		}
	}
	fake := startModel(o.latency, o.dim, log.Printf)
	defer fake.close()
	b := &bench{o: o, bin: bin, tmp: tmp, fake: fake, days: days}
	fmt.Printf("scripted model: %s per chat call; engram: LONG_TERM_MEMORY_WORKER_CONCURRENCY=%d, database %s\n\n",
		o.latency, o.concurrency, map[bool]string{true: "PostgreSQL", false: "SQLite"}[o.db != ""])
	for _, s := range []struct {
		name string
		run  func() error
	}{{"paced", b.paced}, {"burst", b.burst}, {"live", b.live}} {
		if !slices.Contains(o.scenarios, s.name) {
			continue
		}
		if err := s.run(); err != nil {
			return fmt.Errorf("%s: %w", s.name, err)
		}
	}
	return nil
}

// bench holds what the scenarios share.
type bench struct {
	o    options
	bin  string
	tmp  string
	fake *model
	days []memorybank.Day
	runs int
}

// serve starts a fresh engram (its own data directory) against the fake.
func (b *bench) serve(extra ...string) (*server, error) {
	b.runs++
	b.fake.reset()
	dir := filepath.Join(b.tmp, fmt.Sprintf("run%d", b.runs))
	env := []string{
		"ENGRAM_DATA_DIR=" + dir,
		"ENGRAM_LOG_LEVEL=warn",
		"ENGRAM_LLM_PROVIDER=openai", "LLM_API_BASE=" + b.fake.srv.OpenAIBaseURL(), "LLM_MODEL=bench-model",
		"ENGRAM_EMBEDDER=openai", "MEMORY_EMBEDDING_MODEL=bench-embed", fmt.Sprintf("MEMORY_EMBEDDING_DIM=%d", b.o.dim),
		fmt.Sprintf("LONG_TERM_MEMORY_DEBOUNCE_SEC=%g", b.o.debounce),
		fmt.Sprintf("LONG_TERM_MEMORY_WORKER_CONCURRENCY=%d", b.o.concurrency),
	}
	if b.o.db != "" {
		db, err := scratchDatabase(b.o.db, fmt.Sprintf("engram_bench_cost_%d_%d", os.Getpid(), b.runs))
		if err != nil {
			return nil, err
		}
		env = append(env, "ENGRAM_DATABASE_URL="+db)
	}
	return start(b.bin, append(env, extra...))
}

// post stores messages of one user.
func post(s *server, user string, msgs []message) error {
	_, err := s.do("POST", "/v1/users/"+user+"/messages:batch", map[string]any{"messages": msgs}, nil)
	return err
}

type messageView struct {
	Status     string `json:"status"`
	SkipReason string `json:"skip_reason"`
	Events     []struct {
		Op    string `json:"op"`
		After struct {
			Key     string `json:"key"`
			Content string `json:"content"`
			Active  bool   `json:"active"`
		} `json:"after"`
	} `json:"events"`
}

// extracted waits until a user message is no longer PENDING.
func extracted(s *server, user, id string) (messageView, error) {
	var v messageView
	err := waitFor(2*time.Minute, 10*time.Millisecond, "message "+id, func() (bool, error) {
		_, err := s.do("GET", "/v1/users/"+user+"/messages/"+pathEscape(id), nil, &v)
		return err == nil && v.Status != "PENDING", err
	})
	return v, err
}

// searchable waits until a memory key is among the answers to a search for its
// content.
func searchable(s *server, user, key, content string) error {
	return waitFor(time.Minute, 10*time.Millisecond, "memory "+key+" in search", func() (bool, error) {
		var out struct {
			Items []struct {
				Memory *struct {
					Key string `json:"key"`
				} `json:"memory"`
			} `json:"items"`
		}
		if _, err := s.do("POST", "/v1/users/"+user+"/search", map[string]any{"query": content, "scope": "memories", "limit": 20}, &out); err != nil {
			return false, err
		}
		for _, it := range out.Items {
			if it.Memory != nil && it.Memory.Key == key {
				return true, nil
			}
		}
		return false, nil
	})
}

func pathEscape(id string) string { return strings.ReplaceAll(id, "/", "%2F") }
