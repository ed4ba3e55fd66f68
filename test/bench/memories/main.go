// Command memories measures the explicit tools channel through HTTP on loopback:
// memory_save throughput and latency with concurrent clients, and memory GET latency
// with many memories stored for one user. It builds and starts the real binary, so
// what it measures is what a client sees (minus the network).
//
//	go run ./test/bench/memories                       # embedded SQLite
//	go run ./test/bench/memories -db postgres://…      # PostgreSQL
package main

import (
	"bytes"
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"sync/atomic"
	"time"

	"engram/test/bench/latency"
	"engram/test/engramproc"
)

func main() {
	var (
		db      = flag.String("db", "", "postgres:// URL; empty = embedded SQLite in a temp dir")
		clients = flag.Int("clients", 8, "concurrent clients")
		saves   = flag.Int("saves", 20000, "memory_save calls in the throughput run")
		preload = flag.Int("preload", 100000, "memories stored for one user before the GET run")
		gets    = flag.Int("gets", 20000, "GET calls in the latency run")
	)
	flag.Parse()
	if err := run(*db, *clients, *saves, *preload, *gets); err != nil {
		fmt.Fprintln(os.Stderr, "bench:", err)
		os.Exit(1)
	}
}

func run(db string, clients, saves, preload, gets int) error {
	dir, err := os.MkdirTemp("", "engram-bench-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(dir)
	bin, err := engramproc.Build(dir)
	if err != nil {
		return err
	}
	srv, err := engramproc.Start(bin, 30*time.Second, []string{"--roles", "api"},
		"ENGRAM_DATA_DIR="+filepath.Join(dir, "data"), "ENGRAM_DATABASE_URL="+db, "ENGRAM_LOG_LEVEL=warn", "ENGRAM_API_KEYS=")
	if err != nil {
		return err
	}
	defer func() { _ = srv.Stop(30 * time.Second) }()
	base := srv.Base
	client := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: clients * 2}}
	store := "SQLite (embedded)"
	if db != "" {
		store = "PostgreSQL"
	}
	fmt.Printf("engram HTTP benchmark — %s, %d clients, GOMAXPROCS %d, %s\n", store, clients, runtime.GOMAXPROCS(0), time.Now().UTC().Format(time.RFC3339))

	// 1. save throughput: each client writes its own user's new keys.
	var next atomic.Int64
	lat, elapsed, err := latency.Hammer(clients, saves, func(c int) error {
		i := next.Add(1)
		return do(client, http.MethodPut, fmt.Sprintf("%s/v1/users/bench-%d/memories/key-%d", base, c, i),
			map[string]any{"type": "fact", "content": fmt.Sprintf("benchmark memory number %d with some ordinary text", i)}, http.StatusCreated)
	})
	if err != nil {
		return err
	}
	latency.Report("memory_save (new keys)", saves, elapsed, lat)

	// 2. preload one user, then GET random keys.
	next.Store(0)
	start := time.Now()
	_, _, err = latency.Hammer(clients, preload, func(int) error {
		i := next.Add(1)
		return do(client, http.MethodPut, fmt.Sprintf("%s/v1/users/heavy/memories/key-%07d", base, i),
			map[string]any{"type": "preference", "content": fmt.Sprintf("the heavy user's memory %d", i)}, http.StatusCreated)
	})
	if err != nil {
		return err
	}
	fmt.Printf("preloaded %d memories for one user in %s\n", preload, time.Since(start).Round(time.Millisecond))
	// GET latency alone (one client: what one agent waits) and under the same load
	// as the saves (the machine's two cores then queue the requests).
	for _, c := range []int{1, clients} {
		var n atomic.Int64
		lat, elapsed, err = latency.Hammer(c, gets, func(int) error {
			i := n.Add(7919)%int64(preload) + 1
			return do(client, http.MethodGet, fmt.Sprintf("%s/v1/users/heavy/memories/key-%07d", base, i), nil, http.StatusOK)
		})
		if err != nil {
			return err
		}
		latency.Report(fmt.Sprintf("memory GET, %d client(s) (user holding %d)", c, preload), gets, elapsed, lat)
	}
	return nil
}

func do(c *http.Client, method, url string, body any, want int) error {
	var r io.Reader
	if body != nil {
		b, _ := json.Marshal(body)
		r = bytes.NewReader(b)
	}
	req, _ := http.NewRequestWithContext(context.Background(), method, url, r)
	req.Header.Set("Content-Type", "application/json")
	resp, err := c.Do(req)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	data, _ := io.ReadAll(resp.Body)
	if resp.StatusCode != want {
		return fmt.Errorf("%s %s: %d %s", method, url, resp.StatusCode, strings.TrimSpace(string(data)))
	}
	return nil
}
