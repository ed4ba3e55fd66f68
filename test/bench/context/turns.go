package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"math/rand/v2"
	"net/http"
	"path/filepath"
	"sync"
	"sync/atomic"
	"time"

	"engram/test/bench/latency"
	"engram/test/memorybank"
)

// runTurns drives a running engram with agent turns: context before the run,
// record_exchange after, for -duration, -clients at once.
func runTurns(c config) error {
	dur, err := time.ParseDuration(c.duration)
	if err != nil {
		return fmt.Errorf("-duration: %w", err)
	}
	var traffic []memorybank.Turn
	for _, f := range []string{memorybank.English, memorybank.Chinese} {
		days, err := memorybank.Load(filepath.Join(c.data, "memorybank"), f)
		if err != nil {
			return fmt.Errorf("the MemoryBank traffic (-data): %w", err)
		}
		for _, d := range days {
			traffic = append(traffic, d.Turns...)
		}
	}
	hc := &http.Client{Timeout: 30 * time.Second, Transport: &http.Transport{MaxIdleConnsPerHost: 4 * c.clients}}
	if resp, err := hc.Get(c.url + "/readyz"); err != nil {
		return fmt.Errorf("engram at %s: %w", c.url, err)
	} else {
		_ = resp.Body.Close()
	}
	post := func(path string, body any, want int, out any) error {
		b, _ := json.Marshal(body)
		resp, err := hc.Post(c.url+path, "application/json", bytes.NewReader(b))
		if err != nil {
			return err
		}
		defer resp.Body.Close()
		data, _ := io.ReadAll(resp.Body)
		if resp.StatusCode != want {
			return fmt.Errorf("%s: %d %.200s", path, resp.StatusCode, data)
		}
		if out != nil {
			return json.Unmarshal(data, out)
		}
		return nil
	}
	var (
		next                       atomic.Int64
		errs                       atomic.Int64
		chars                      atomic.Int64
		mu                         sync.Mutex
		turnLat, ctxLat, recordLat []time.Duration
		firstErrs                  []string
	)
	stop := time.Now().Add(dur)
	start := time.Now()
	var wg sync.WaitGroup
	for client := range c.clients {
		wg.Go(func() {
			rng := rand.New(rand.NewPCG(c.seed, uint64(client)))
			var turns, contexts, records []time.Duration
			for time.Now().Before(stop) {
				x := traffic[int(next.Add(1))%len(traffic)]
				user := fmt.Sprintf("agent-user-%03d", rng.IntN(c.users))
				sessionID := fmt.Sprintf("s%d", rng.IntN(3))
				t0 := time.Now()
				var answer struct {
					InjectedChars int `json:"injected_chars"`
				}
				err := post("/v1/users/"+user+"/context", map[string]any{"query": x.Query, "session_id": sessionID, "flow_id": "bench"}, http.StatusOK, &answer)
				t1 := time.Now()
				if err == nil {
					err = post("/v1/users/"+user+"/sessions/"+sessionID+"/exchanges", map[string]any{"flow_id": "bench",
						"user_message": x.Query, "assistant_message": x.Response}, http.StatusAccepted, nil)
				}
				t2 := time.Now()
				if err != nil {
					if errs.Add(1) <= 5 {
						mu.Lock()
						firstErrs = append(firstErrs, err.Error())
						mu.Unlock()
					}
					continue
				}
				chars.Add(int64(answer.InjectedChars))
				turns, contexts, records = append(turns, t2.Sub(t0)), append(contexts, t1.Sub(t0)), append(records, t2.Sub(t1))
			}
			mu.Lock()
			turnLat, ctxLat, recordLat = append(turnLat, turns...), append(ctxLat, contexts...), append(recordLat, records...)
			mu.Unlock()
		})
	}
	wg.Wait()
	took := time.Since(start)
	if len(turnLat) == 0 {
		return fmt.Errorf("no turn succeeded: %v", firstErrs)
	}
	fmt.Printf("%s, %d clients, %d users, %s: %d turns, %d errors, %.0f characters injected on average\n",
		c.url, c.clients, c.users, dur, len(turnLat), errs.Load(), float64(chars.Load())/float64(len(turnLat)))
	latency.Report("turn (context + record_exchange, over HTTP)", len(turnLat), took, turnLat)
	latency.Report("  context", len(ctxLat), took, ctxLat)
	latency.Report("  record_exchange", len(recordLat), took, recordLat)
	for _, e := range firstErrs {
		fmt.Println("  error:", e)
	}
	return nil
}
