// Command context measures the context call in three modes (docs/BENCHMARKS.md
// "The context call").
//
// The modes:
//
// latency — server-side (the use cases called in process, as the HTTP handler
// calls them): the context call's p50/p95/p99 and its stages for one user holding
// 100,000 memories and 50 sessions, next to record_exchange on the same store. The
// memories come from test/bench/search's data set; this mode adds the sessions
// (16 turns each, folded once by the offline summarizer) and indexes their
// messages, then asks questions made of the memories' words:
//
//	go run ./test/bench/search -dir /tmp/engram-ctx -build -users 10 -messages 10000
//	go run ./test/bench/context -mode latency -dir /tmp/engram-ctx
//	go run ./test/bench/search -db postgres://… -build -users 10 -messages 10000
//	go run ./test/bench/context -mode latency -db postgres://… -redis 127.0.0.1:56379
//
// turns — sustained agent turns over HTTP against a running `engram serve` (all
// roles, as deployed): each turn is one context call and one record_exchange of a
// MemoryBank exchange (English and Chinese), many users, -clients at once for
// -duration; turns per second, per-turn p50/p95/p99 and errors:
//
//	go run ./test/bench/context -mode turns -url http://127.0.0.1:8080 -data ../shared/datasets
//
// evidence — each LoCoMo dev conversation recorded through record_exchange (its
// sessions as sessions, each stamped with the session's date), extracted and
// indexed as the worker and indexer roles do, then every category 1–4 question
// asked through the context call of a new session at 2,000, 4,000 and 8,000
// characters: the share of evidence turns whose text reaches prompt, by category,
// next to the size of the whole history:
//
//	go run ./test/bench/context -mode evidence -data ../shared/datasets
package main

import (
	"flag"
	"fmt"
	"log/slog"
	"os"
)

type config struct {
	mode     string
	dir, db  string
	redis    string
	url      string
	data     string
	calls    int
	sessions int
	clients  int
	users    int
	duration string
	budgets  string
	seed     uint64
	retrieve string
}

func main() {
	var c config
	flag.StringVar(&c.mode, "mode", "latency", "latency, turns or evidence")
	flag.StringVar(&c.dir, "dir", "/tmp/engram-bench-search", "latency: the data directory test/bench/search built (SQLite)")
	flag.StringVar(&c.db, "db", "", "latency: postgres:// URL of the data set instead of SQLite")
	flag.StringVar(&c.redis, "redis", "", "latency: Redis host:port for the sessions; empty = sessions in SQL")
	flag.StringVar(&c.url, "url", "http://127.0.0.1:8080", "turns: the engram server")
	flag.StringVar(&c.data, "data", "../shared/datasets", "turns and evidence: the datasets directory (memorybank/, locomo/)")
	flag.IntVar(&c.calls, "calls", 300, "latency: context calls measured")
	flag.IntVar(&c.sessions, "sessions", 50, "latency: sessions of the big user")
	flag.IntVar(&c.clients, "clients", 8, "turns: concurrent agents")
	flag.IntVar(&c.users, "users", 200, "turns: users the turns are spread over")
	flag.StringVar(&c.duration, "duration", "30s", "turns: how long to run")
	flag.StringVar(&c.budgets, "budgets", "2000,4000,8000", "evidence: budget_chars values")
	flag.Uint64Var(&c.seed, "seed", 1, "random seed")
	flag.StringVar(&c.retrieve, "retrieve-mode", "auto", "latency and evidence: LONG_TERM_MEMORY_RETRIEVE_MODE (auto, dense, lexical, full_inject)")
	flag.Parse()
	slog.SetDefault(slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: slog.LevelError})))
	var err error
	switch c.mode {
	case "latency":
		err = runLatency(c)
	case "turns":
		err = runTurns(c)
	case "evidence":
		err = runEvidence(c)
	default:
		err = fmt.Errorf("-mode must be latency, turns or evidence, got %q", c.mode)
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "context bench:", err)
		os.Exit(1)
	}
}
