// Package latency is what the benchmark programs share: run a call many times over
// concurrent clients, and print throughput and percentiles.
package latency

import (
	"fmt"
	"slices"
	"sync"
	"sync/atomic"
	"time"
)

// Hammer runs total calls of fn over clients goroutines and returns every call's
// latency and the wall time. The first error stops the run.
func Hammer(clients, total int, fn func(client int) error) ([]time.Duration, time.Duration, error) {
	var (
		mu       sync.Mutex
		all      = make([]time.Duration, 0, total)
		issued   atomic.Int64
		firstErr atomic.Value
		wg       sync.WaitGroup
	)
	start := time.Now()
	for c := 0; c < clients; c++ {
		wg.Go(func() {
			local := make([]time.Duration, 0, total/clients+1)
			for issued.Add(1) <= int64(total) {
				t := time.Now()
				if err := fn(c); err != nil {
					firstErr.CompareAndSwap(nil, err)
					return
				}
				local = append(local, time.Since(t))
			}
			mu.Lock()
			all = append(all, local...)
			mu.Unlock()
		})
	}
	wg.Wait()
	if err, _ := firstErr.Load().(error); err != nil {
		return nil, 0, err
	}
	return all, time.Since(start), nil
}

// Report prints one line: calls, calls per second, p50, p95 and p99.
func Report(name string, n int, elapsed time.Duration, lat []time.Duration) {
	slices.Sort(lat)
	pct := func(p float64) time.Duration { return lat[int(p*float64(len(lat)-1))] }
	fmt.Printf("%-48s %7d calls %8.0f/s  p50 %6.3f ms  p95 %6.3f ms  p99 %6.3f ms\n", name, n,
		float64(n)/elapsed.Seconds(), MS(pct(.50)), MS(pct(.95)), MS(pct(.99)))
}

// MS is d in milliseconds, to the microsecond.
func MS(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }
