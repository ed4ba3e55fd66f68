// Command sessions measures short-term sessions server-side (the use cases called
// in process, as the HTTP handler calls them: no HTTP, no JSON): record_exchange
// p50/p95/p99 alone and under concurrent clients, reading a session back, and the
// user's listing with and without rueidis' client-side cache.
//
//	go run ./test/bench/sessions                                         # embedded: SQLite, SQL sessions
//	go run ./test/bench/sessions -redis 127.0.0.1:56379                  # SQLite + Redis sessions
//	go run ./test/bench/sessions -db postgres://… -redis 127.0.0.1:56379 # PostgreSQL + Redis
//
// The Redis keys live under a prefix of their own and are deleted at the end.
// docs/BENCHMARKS.md "Short-term sessions" holds the figures.
package main

import (
	"context"
	"flag"
	"fmt"
	"log/slog"
	"os"
	"runtime"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/oklog/ulid/v2"

	"engram/adapters/clock"
	"engram/adapters/redisstore"
	"engram/adapters/sqlstore"
	"engram/adapters/ulids"
	"engram/app/messages"
	"engram/app/sessions"
	"engram/domain/memory"
	"engram/domain/session"
	"engram/ports"
	"engram/test/bench/latency"
	"engram/test/testenv"
)

type config struct {
	db, redis       string
	turns, clients  int
	users, sessions int
	listUsers       int
}

func main() {
	var c config
	flag.StringVar(&c.db, "db", "", "postgres:// URL; empty = SQLite in a temporary directory")
	flag.StringVar(&c.redis, "redis", "", "Redis host:port for the sessions; empty = sessions in SQL")
	flag.IntVar(&c.turns, "turns", 20000, "record_exchange calls per run")
	flag.IntVar(&c.clients, "clients", 8, "concurrent clients of the second run")
	flag.IntVar(&c.users, "users", 200, "users the turns are spread over")
	flag.IntVar(&c.sessions, "sessions", 5, "sessions per user")
	flag.IntVar(&c.listUsers, "list-sessions", 50, "sessions of the user whose listing is measured")
	flag.Parse()
	slog.SetDefault(slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: slog.LevelError})))
	if err := run(c); err != nil {
		fmt.Fprintln(os.Stderr, "sessions bench:", err)
		os.Exit(1)
	}
}

type rig struct {
	svc     *sessions.Service
	store   ports.SessionStore
	redis   *redisstore.Store
	cached  *redisstore.Store
	backlog func(context.Context) (int64, error) // turns not yet relayed; nil without Redis
	close   func()
}

func setUp(ctx context.Context, c config) (*rig, string, error) {
	dir, err := os.MkdirTemp("", "engram-bench-sessions-")
	if err != nil {
		return nil, "", err
	}
	db, err := sqlstore.Open(ctx, sqlstore.Options{DatabaseURL: c.db, DataDir: dir})
	if err != nil {
		return nil, "", err
	}
	if err := db.Migrate(ctx); err != nil {
		return nil, "", err
	}
	clk, ids := clock.System{}, ulids.New()
	limits := session.Limits{}.WithDefaults()
	sql := sqlstore.NewSessionStore(db, clk, limits)
	r := &rig{store: sql, close: func() { _ = db.Close(); _ = os.RemoveAll(dir) }}
	shape := "SQLite"
	if c.db != "" {
		shape = "PostgreSQL"
	}
	if c.redis != "" {
		prefix := "engram-bench-" + strings.ToLower(ulid.Make().String())
		open := func(cache bool) (*redisstore.Store, error) {
			return redisstore.New(redisstore.Options{Addr: c.redis, Prefix: prefix, Limits: limits, ClientCache: cache, RelayTurns: true})
		}
		if r.redis, err = open(false); err != nil {
			return nil, "", err
		}
		if r.cached, err = open(true); err != nil {
			return nil, "", err
		}
		r.store = sessions.NewFailover(r.redis, sql, sessions.FailoverOptions{PrimaryRelays: true})
		inner := r.close
		r.close = func() {
			_ = r.redis.Close()
			_ = r.cached.Close()
			_ = testenv.DeleteRedisPrefix(c.redis, prefix)
			inner()
		}
		shape += " + Redis sessions"
	} else {
		shape += ", SQL sessions"
	}
	msgs := messages.New(sqlstore.NewMessageStore(db), clk, ids, messages.Options{Debounce: 12 * time.Second})
	r.svc = sessions.New(sessions.Deps{Store: r.store, Conversations: msgs, Clock: clk, IDs: ids}, sessions.Options{})
	if r.redis != nil {
		// The relay writes the queued turns into the messages table while the
		// benchmark runs, as the api role does.
		relay := sessions.NewRelay(r.redis, msgs, sessions.RelayOptions{Consumer: "bench", Wait: 100 * time.Millisecond})
		rctx, cancel := context.WithCancel(ctx)
		done := make(chan struct{})
		go func() { defer close(done); relay.Run(rctx) }()
		inner := r.close
		r.close = func() { cancel(); <-done; inner() }
		r.backlog = r.redis.TurnBacklog
	}
	return r, shape, nil
}

func run(c config) error {
	ctx := context.Background()
	r, shape, err := setUp(ctx, c)
	if err != nil {
		return err
	}
	defer r.close()
	fmt.Printf("engram sessions benchmark — %s, GOMAXPROCS %d, %s\n", shape, runtime.GOMAXPROCS(0), time.Now().UTC().Format(time.RFC3339))

	var n atomic.Int64
	var stages sync.Map
	record := func(int) error {
		i := n.Add(1)
		user, sess := int(i)%c.users, int(i/int64(c.users))%c.sessions
		res, err := r.svc.Record(ctx, sessions.Record{Scope: memory.Scope{Tenant: "bench", User: fmt.Sprintf("u%04d", user)},
			SessionID: fmt.Sprintf("s%d", sess), FlowID: "flow", Exchange: session.ExchangeInput{
				UserMessage:      fmt.Sprintf("Turn %d: please remember that the report for project %d is due on Friday.", i, user),
				AssistantMessage: "Noted. I will remind you on Thursday and keep the draft in the shared folder."}})
		if err == nil {
			for stage, d := range res.Timings {
				v, _ := stages.LoadOrStore(stage, &durations{})
				v.(*durations).add(d)
			}
		}
		return err
	}
	for _, clients := range []int{1, c.clients} {
		stages = sync.Map{}
		lat, elapsed, err := latency.Hammer(clients, c.turns, record)
		if err != nil {
			return err
		}
		latency.Report(fmt.Sprintf("record_exchange, %d client(s)", clients), c.turns, elapsed, lat)
		for _, stage := range []string{"session_store", "messages"} {
			if v, ok := stages.Load(stage); ok {
				latency.Report("  stage "+stage, c.turns, elapsed, v.(*durations).all())
			}
		}
		if err := drainRelay(ctx, r, start(elapsed)); err != nil {
			return err
		}
	}
	return measureReads(ctx, c, r)
}

func start(elapsed time.Duration) time.Time { return time.Now().Add(-elapsed) }

// drainRelay waits for the relay to write every queued turn and reports when the
// last one was written, counted from the start of the run.
func drainRelay(ctx context.Context, r *rig, began time.Time) error {
	if r.backlog == nil {
		return nil
	}
	left, _ := r.backlog(ctx)
	deadline := time.Now().Add(5 * time.Minute)
	for {
		n, err := r.backlog(ctx)
		if err != nil {
			return err
		}
		if n == 0 {
			break
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("the relay left %d turns after 5 minutes", n)
		}
		time.Sleep(10 * time.Millisecond)
	}
	fmt.Printf("  relay: %d turns queued at the end of the run, all written %.1f s after the run began\n", left, time.Since(began).Seconds())
	return nil
}

// measureReads times a session read and the listing of a user with many sessions.
func measureReads(ctx context.Context, c config, r *rig) error {
	scope := memory.Scope{Tenant: "bench", User: "u0001"}
	lat, elapsed, err := latency.Hammer(1, 5000, func(int) error {
		_, err := r.svc.Get(ctx, sessions.Get{Scope: scope, SessionID: "s1", FlowID: "flow", Limit: 20})
		return err
	})
	if err != nil {
		return err
	}
	latency.Report("session read (20 latest, summary, meta)", 5000, elapsed, lat)

	lister := memory.Scope{Tenant: "bench", User: "lister"}
	for i := range c.listUsers {
		x, _ := session.NewExchange(session.Ref{Scope: lister, FlowID: "flow", SessionID: fmt.Sprintf("s%03d", i)},
			session.ExchangeInput{UserMessage: "hello", AssistantMessage: "hi"}, ulid.Make().String(), time.Now())
		if _, err := r.store.AppendExchange(ctx, ports.SessionAppend{Exchange: x}); err != nil {
			return err
		}
	}
	listers := []struct {
		name  string
		store ports.SessionStore
	}{{"listing", r.store}}
	if r.redis != nil {
		listers = []struct {
			name  string
			store ports.SessionStore
		}{{"listing, no client cache", r.redis}, {"listing, client-side cache", r.cached}}
	}
	for _, l := range listers {
		lat, elapsed, err := latency.Hammer(1, 5000, func(int) error {
			got, err := l.store.Sessions(ctx, lister, ports.SessionQuery{Limit: c.listUsers})
			if err == nil && len(got) != c.listUsers {
				err = fmt.Errorf("listed %d of %d sessions", len(got), c.listUsers)
			}
			return err
		})
		if err != nil {
			return err
		}
		latency.Report(fmt.Sprintf("%s (%d sessions)", l.name, c.listUsers), 5000, elapsed, lat)
	}
	return nil
}

type durations struct {
	mu   sync.Mutex
	vals []time.Duration
}

func (d *durations) add(x time.Duration) { d.mu.Lock(); d.vals = append(d.vals, x); d.mu.Unlock() }

func (d *durations) all() []time.Duration { return d.vals }
