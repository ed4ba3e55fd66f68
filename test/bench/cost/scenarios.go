package main

import (
	"fmt"
	"slices"
	"sort"
	"strings"
	"sync"
	"time"

	"engram/test/memorybank"
)

// paced posts turns one at a time, each after the previous was extracted.
func (b *bench) paced() error {
	s, err := b.serve()
	if err != nil {
		return err
	}
	defer s.stop()
	var (
		turns               int
		toExtracted, toFind []time.Duration
	)
	for _, d := range b.days {
		for i, t := range d.Turns {
			if turns == b.o.paced {
				break
			}
			turns++
			id := fmt.Sprintf("%s/%d", d.Date, i)
			posted := time.Now()
			if err := post(s, d.User, exchange(d.Date, id, t)); err != nil {
				return err
			}
			v, err := extracted(s, d.User, id+"/u")
			if err != nil {
				return err
			}
			toExtracted = append(toExtracted, time.Since(posted))
			for _, e := range v.Events {
				if e.After.Active && e.Op != "DELETE" {
					if err := searchable(s, d.User, e.After.Key, e.After.Content); err != nil {
						return err
					}
					toFind = append(toFind, time.Since(posted))
					break
				}
			}
		}
	}
	m, err := s.metrics()
	if err != nil {
		return err
	}
	st := b.fake.snapshot()
	fmt.Printf("## paced: %d MemoryBank EN turns, one at a time (debounce %gs)\n\n", turns, b.o.debounce)
	fmt.Printf("| model calls per user message | extract calls | refine calls | skipped by the prefilter | skipped by the gate | memories written |\n|---|---|---|---|---|---|\n")
	fmt.Printf("| %.2f | %d | %d | %.0f | %.0f | %.0f |\n\n", float64(st.calls())/float64(turns), st.Extract, st.Refine,
		sum(m, "engram_extraction_skipped_messages_total")-sum(m, "engram_extraction_skipped_messages_total", `reason="nothing_about_the_user"`),
		sum(m, "engram_extraction_skipped_messages_total", `reason="nothing_about_the_user"`),
		sum(m, "engram_extraction_candidates_total", `fate="written"`))
	fmt.Printf("| time from post | p50 | p90 | max |\n|---|---|---|---|\n")
	fmt.Printf("| until extracted (%d messages) | %s | %s | %s |\n", len(toExtracted), pct(toExtracted, 50), pct(toExtracted, 90), pct(toExtracted, 100))
	fmt.Printf("| until its memory is searchable (%d messages that wrote one) | %s | %s | %s |\n\n", len(toFind), pct(toFind, 50), pct(toFind, 90), pct(toFind, 100))
	return nil
}

// burst posts all the traffic at once and waits for the drain.
func (b *bench) burst() error {
	s, err := b.serve()
	if err != nil {
		return err
	}
	defer s.stop()
	users := map[string]bool{}
	userMsgs, all := 0, 0
	began := time.Now()
	for _, d := range b.days {
		var msgs []message
		for i, t := range d.Turns {
			msgs = append(msgs, exchange(d.Date, fmt.Sprintf("%s/%d", d.Date, i), t)...)
		}
		if err := post(s, d.User, msgs); err != nil {
			return err
		}
		users[d.User] = true
		userMsgs += len(d.Turns)
		all += len(msgs)
	}
	posted := time.Since(began)
	var m map[string]float64
	err = waitFor(10*time.Minute, 50*time.Millisecond, "the backlog to drain", func() (bool, error) {
		var err error
		m, err = s.metrics()
		return err == nil && m["engram_messages_pending"] == 0, err
	})
	if err != nil {
		return err
	}
	drained := time.Since(began)
	st := b.fake.snapshot()
	if err := waitFor(10*time.Minute, 100*time.Millisecond, "the indexer", func() (bool, error) {
		var err error
		m, err = s.metrics()
		return err == nil && sum(m, "engram_vector_backlog", `status="DIRTY"`) == 0, err
	}); err != nil {
		return err
	}
	emb := b.fake.snapshot()
	busy := st.Last.Sub(st.First)
	fmt.Printf("## burst: all MemoryBank EN traffic at once (%d users, %d conversations, %d user and %d assistant messages; debounce %gs)\n\n",
		len(users), len(b.days), userMsgs, all-userMsgs, b.o.debounce)
	fmt.Printf("| all extracted after | posting took | model calls | per user message | calls in flight: max | mean while the model was busy | FAILED |\n|---|---|---|---|---|---|---|\n")
	fmt.Printf("| %s | %s | %d (%d extract, %d refine) | %.2f | %d | %.1f | %.0f |\n\n", drained.Round(100*time.Millisecond), posted.Round(10*time.Millisecond),
		st.calls(), st.Extract, st.Refine, float64(st.calls())/float64(userMsgs), st.MaxInFlight,
		st.CallTime.Seconds()/max(busy.Seconds(), 1e-9), m[`engram_messages{status="FAILED"}`])
	fmt.Printf("| embedding inputs (remote embedder) | in all | per user message | per message |\n|---|---|---|---|\n")
	fmt.Printf("| every input | %d | %.2f | %.2f |\n", emb.EmbedMemoryInputs+emb.EmbedOtherInputs,
		float64(emb.EmbedMemoryInputs+emb.EmbedOtherInputs)/float64(userMsgs), float64(emb.EmbedMemoryInputs+emb.EmbedOtherInputs)/float64(all))
	fmt.Printf("| memory index texts (candidates; the indexer's misses of the handoff) | %d | %.2f | %.2f |\n", emb.EmbedMemoryInputs,
		float64(emb.EmbedMemoryInputs)/float64(userMsgs), float64(emb.EmbedMemoryInputs)/float64(all))
	fmt.Printf("| message texts (episodic vectors, one per message) | %d | %.2f | %.2f |\n\n", emb.EmbedOtherInputs,
		float64(emb.EmbedOtherInputs)/float64(userMsgs), float64(emb.EmbedOtherInputs)/float64(all))
	fmt.Printf("Memories written: %.0f; memory texts embedded more than once: %d; prompt bytes per call: %.0f.\n\n",
		sum(m, "engram_extraction_candidates_total", `fate="written"`), emb.reembedded(), float64(st.PromptBytes)/float64(max(st.calls(), 1)))
	return nil
}

// liveSetting is one batching configuration of the live scenario.
type liveSetting struct {
	name                string
	maxMessages         int
	maxWait             float64
	debounce            float64
	gap                 time.Duration
	usersAtOnce, turnsN int
}

// live has users chatting faster than the debounce, under batching settings.
func (b *bench) live() error {
	settings := []liveSetting{
		{name: "no batching limits", maxMessages: 0, maxWait: 0},
		{name: "MAX_WAIT 8 s", maxMessages: 0, maxWait: 8},
		{name: "MAX_WAIT 16 s", maxMessages: 0, maxWait: 16},
		{name: "MAX_MESSAGES 4", maxMessages: 4, maxWait: 0},
	}
	fmt.Printf("## live: 5 users writing every second, one long conversation each, debounce 4 s (times scaled down from 12 s)\n\n")
	fmt.Printf("| setting | model calls per user message | wait from post until extracted: mean | p90 | max |\n|---|---|---|---|---|\n")
	for _, set := range settings {
		set.debounce, set.gap, set.usersAtOnce, set.turnsN = 4, time.Second, 5, 30
		calls, waits, err := b.liveRun(set)
		if err != nil {
			return err
		}
		fmt.Printf("| %s | %.2f | %s | %s | %s |\n", set.name, calls, mean(waits), pct(waits, 90), pct(waits, 100))
	}
	fmt.Println()
	return nil
}

func (b *bench) liveRun(set liveSetting) (float64, []time.Duration, error) {
	s, err := b.serve(fmt.Sprintf("LONG_TERM_MEMORY_DEBOUNCE_SEC=%g", set.debounce),
		fmt.Sprintf("LONG_TERM_MEMORY_BATCH_MAX_MESSAGES=%d", set.maxMessages),
		fmt.Sprintf("LONG_TERM_MEMORY_BATCH_MAX_WAIT_SEC=%g", set.maxWait))
	if err != nil {
		return 0, nil, err
	}
	defer s.stop()
	byUser := map[string][]memorybank.Turn{}
	var users []string
	for _, d := range b.days {
		if _, ok := byUser[d.User]; !ok {
			users = append(users, d.User)
		}
		byUser[d.User] = append(byUser[d.User], d.Turns...)
	}
	sort.Strings(users)
	users = users[:set.usersAtOnce]
	var (
		mu     sync.Mutex
		waits  []time.Duration
		errs   []error
		wg     sync.WaitGroup
		posted = map[string]time.Time{}
	)
	for _, u := range users {
		wg.Add(1)
		go func() {
			defer wg.Done()
			turns := byUser[u][:min(set.turnsN, len(byUser[u]))]
			for i, t := range turns {
				id := fmt.Sprintf("t%03d", i)
				mu.Lock()
				posted[u+"/"+id] = time.Now()
				mu.Unlock()
				if err := post(s, u, exchange("chat", id, t)); err != nil {
					mu.Lock()
					errs = append(errs, err)
					mu.Unlock()
					return
				}
				time.Sleep(set.gap) // the user typing the next message
			}
		}()
	}
	wg.Wait()
	if len(errs) > 0 {
		return 0, nil, errs[0]
	}
	for _, u := range users {
		for i := range min(set.turnsN, len(byUser[u])) {
			id := fmt.Sprintf("t%03d", i)
			if _, err := extracted(s, u, id+"/u"); err != nil {
				return 0, nil, err
			}
		}
	}
	// When each message was extracted: its processed_at, read back.
	for key, at := range posted {
		u, id, _ := strings.Cut(key, "/")
		var v struct {
			ProcessedAt time.Time `json:"processed_at"`
		}
		if _, err := s.do("GET", "/v1/users/"+u+"/messages/"+id+"%2Fu", nil, &v); err != nil {
			return 0, nil, err
		}
		waits = append(waits, v.ProcessedAt.Sub(at))
	}
	st := b.fake.snapshot()
	return float64(st.calls()) / float64(len(posted)), waits, nil
}

func pct(ds []time.Duration, p int) string {
	if len(ds) == 0 {
		return "–"
	}
	s := slices.Clone(ds)
	slices.Sort(s)
	i := (len(s)*p + 99) / 100
	return s[max(min(i, len(s))-1, 0)].Round(10 * time.Millisecond).String()
}

func mean(ds []time.Duration) string {
	if len(ds) == 0 {
		return "–"
	}
	var total time.Duration
	for _, d := range ds {
		total += d
	}
	return (total / time.Duration(len(ds))).Round(10 * time.Millisecond).String()
}
