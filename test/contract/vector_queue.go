package contract

import (
	"context"
	"fmt"
	"sync"
	"testing"
	"time"

	"engram/domain/conversation"
	"engram/domain/memory"
	"engram/ports"
)

// VectorQueue is a backend's vector queue with its requeue and the backlog its
// metrics show.
type VectorQueue interface {
	ports.VectorQueue
	ports.VectorRequeuer
	Backlog(ctx context.Context) (ports.VectorBacklog, error)
}

// VectorQueueStores is what a vector queue case needs: the queue and the truth
// stores it reads, over the same data.
type VectorQueueStores struct {
	Sync     VectorQueue
	Memories ports.MemoryStore
	Messages MessageStore
}

// RunVectorQueue is the contract of ports.VectorQueue and ports.VectorRequeuer. open returns empty
// stores; each case opens its own.
func RunVectorQueue(t *testing.T, open func(t *testing.T) VectorQueueStores) {
	t.Helper()
	t0 := time.Date(2026, 11, 30, 9, 0, 0, 0, time.UTC)
	lease := time.Minute
	claim := func(worker string, at time.Time, limit int) ports.VectorClaim {
		return ports.VectorClaim{Worker: worker, Now: at, Lease: lease, Limit: limit}
	}

	t.Run("a new memory is due once, until its lease lapses", func(t *testing.T) {
		t.Parallel()
		s, ctx := open(t), vecTestContext(t)
		m := vsSaveMemory(t, ctx, s, "t1", "u1", "drink", "likes tea", t0)
		got := vsClaimMemories(t, ctx, s, claim("w1", t0, 10))
		if len(got) != 1 || got[0].Memory.ID() != m.ID() || got[0].Attempts != 0 || !got[0].DirtySince.Equal(t0) {
			t.Fatalf("claim = %+v, want the new memory, no attempts, dirty since %s", got, t0)
		}
		if got[0].Memory.Content() != "likes tea" || got[0].Memory.Version() != m.Version() {
			t.Fatalf("claimed memory %+v, want the stored one", got[0].Memory.State())
		}
		if again := vsClaimMemories(t, ctx, s, claim("w2", t0.Add(30*time.Second), 10)); len(again) != 0 {
			t.Fatalf("claimed twice within the lease: %+v", again)
		}
		if later := vsClaimMemories(t, ctx, s, claim("w2", t0.Add(lease), 10)); len(later) != 1 {
			t.Fatalf("after the lease: %d claimed, want the lapsed one", len(later))
		}
	})

	t.Run("claims take the oldest changes first and respect the limit", func(t *testing.T) {
		t.Parallel()
		s, ctx := open(t), vecTestContext(t)
		for i := range 5 {
			vsSaveMemory(t, ctx, s, "t1", "u1", fmt.Sprintf("k%d", 4-i), "text", t0.Add(time.Duration(i)*time.Second))
		}
		got := vsClaimMemories(t, ctx, s, claim("w1", t0.Add(time.Minute), 3))
		var keys []string
		for _, c := range got {
			keys = append(keys, c.Memory.Key().String())
		}
		if fmt.Sprint(keys) != "[k4 k3 k2]" {
			t.Fatalf("claimed %v, want [k4 k3 k2]", keys)
		}
	})

	t.Run("a synced outcome is stored and the memory is no longer due", func(t *testing.T) {
		t.Parallel()
		s, ctx := open(t), vecTestContext(t)
		m := vsSaveMemory(t, ctx, s, "t1", "u1", "drink", "likes tea", t0)
		c := vsClaimMemories(t, ctx, s, claim("w1", t0, 10))[0]
		synced := c.Memory.MarkVectorSynced("model-a", int(c.Memory.Version()), memory.TextHash(c.Memory.IndexText()), t0.Add(time.Second))
		n, err := s.Sync.FinishMemories(ctx, "w1", []ports.MemoryVectorOutcome{{ID: m.ID(), Version: m.Version(), Vector: synced.Vector()}})
		if err != nil || n != 1 {
			t.Fatalf("Finish = %d, %v; want 1 stored", n, err)
		}
		got, err := s.Memories.Get(ctx, m.Scope(), m.Key())
		if err != nil {
			t.Fatal(err)
		}
		if got.Vector() != synced.Vector() {
			t.Fatalf("stored vector state %+v, want %+v", got.Vector(), synced.Vector())
		}
		if got.Version() != m.Version() || got.Content() != m.Content() || !got.UpdatedAt().Equal(m.UpdatedAt()) {
			t.Fatalf("finishing changed the memory itself: %+v", got.State())
		}
		if again := vsClaimMemories(t, ctx, s, claim("w1", t0.Add(time.Hour), 10)); len(again) != 0 {
			t.Fatalf("a SYNCED memory is due: %+v", again)
		}
		if b := vsBacklog(t, ctx, s); b.DirtyMemories != 0 || !b.OldestDirty.IsZero() {
			t.Fatalf("backlog %+v, want none", b)
		}
	})

	t.Run("an edit made meanwhile keeps the memory dirty and frees it", func(t *testing.T) {
		t.Parallel()
		s, ctx := open(t), vecTestContext(t)
		m := vsSaveMemory(t, ctx, s, "t1", "u1", "drink", "likes tea", t0)
		c := vsClaimMemories(t, ctx, s, claim("w1", t0, 10))[0]
		edited := vsSaveMemory(t, ctx, s, "t1", "u1", "drink", "likes coffee", t0.Add(time.Second))
		synced := c.Memory.MarkVectorSynced("model-a", int(c.Memory.Version()), "hash", t0)
		n, err := s.Sync.FinishMemories(ctx, "w1", []ports.MemoryVectorOutcome{{ID: m.ID(), Version: m.Version(), Vector: synced.Vector()}})
		if err != nil || n != 0 {
			t.Fatalf("Finish of a stale version = %d, %v; want nothing stored", n, err)
		}
		got, _ := s.Memories.Get(ctx, m.Scope(), m.Key())
		if got.Vector().Status != memory.VectorDirty || got.Version() != edited.Version() {
			t.Fatalf("state %+v at version %d, want DIRTY at %d", got.Vector(), got.Version(), edited.Version())
		}
		again := vsClaimMemories(t, ctx, s, claim("w2", t0.Add(2*time.Second), 10))
		if len(again) != 1 || again[0].Memory.Content() != "likes coffee" {
			t.Fatalf("after a stale finish: %+v, want the edited memory due at once", again)
		}
	})

	t.Run("only the holder of a claim stores an outcome", func(t *testing.T) {
		t.Parallel()
		s, ctx := open(t), vecTestContext(t)
		m := vsSaveMemory(t, ctx, s, "t1", "u1", "drink", "likes tea", t0)
		vsClaimMemories(t, ctx, s, claim("w1", t0, 10))
		// w1's lease lapses and w2 takes over; w1 finishing late must not win.
		vsClaimMemories(t, ctx, s, claim("w2", t0.Add(lease), 10))
		late := m.MarkVectorSynced("model-a", int(m.Version()), "hash", t0)
		if n, err := s.Sync.FinishMemories(ctx, "w1", []ports.MemoryVectorOutcome{{ID: m.ID(), Version: m.Version(), Vector: late.Vector()}}); err != nil || n != 0 {
			t.Fatalf("Finish by a former holder = %d, %v; want nothing stored", n, err)
		}
		if n, err := s.Sync.FinishMemories(ctx, "w2", []ports.MemoryVectorOutcome{{ID: m.ID(), Version: m.Version(), Vector: late.Vector()}}); err != nil || n != 1 {
			t.Fatalf("Finish by the holder = %d, %v; want 1", n, err)
		}
	})

	t.Run("a failed memory waits for its retry time and keeps its attempts", func(t *testing.T) {
		t.Parallel()
		s, ctx := open(t), vecTestContext(t)
		m := vsSaveMemory(t, ctx, s, "t1", "u1", "drink", "likes tea", t0)
		vsClaimMemories(t, ctx, s, claim("w1", t0, 10))
		failed := m.MarkVectorFailed("embedder: 503", t0)
		retry := t0.Add(10 * time.Second)
		n, err := s.Sync.FinishMemories(ctx, "w1", []ports.MemoryVectorOutcome{{ID: m.ID(), Version: m.Version(), Vector: failed.Vector(), Attempts: 1, NextAttempt: retry}})
		if err != nil || n != 1 {
			t.Fatalf("Finish = %d, %v", n, err)
		}
		got, _ := s.Memories.Get(ctx, m.Scope(), m.Key())
		if got.Vector().Status != memory.VectorFailed || got.Vector().Error != "embedder: 503" {
			t.Fatalf("state %+v, want FAILED with the error", got.Vector())
		}
		if early := vsClaimMemories(t, ctx, s, claim("w1", retry.Add(-time.Millisecond), 10)); len(early) != 0 {
			t.Fatal("a FAILED memory was due before its retry time")
		}
		due := vsClaimMemories(t, ctx, s, claim("w1", retry, 10))
		if len(due) != 1 || due[0].Attempts != 1 {
			t.Fatalf("at the retry time: %+v, want it with 1 attempt", due)
		}
		if b := vsBacklog(t, ctx, s); b.FailedMemories != 1 || b.DirtyMemories != 0 || !b.OldestDirty.Equal(t0) {
			t.Fatalf("backlog %+v, want one FAILED since %s", b, t0)
		}
	})

	t.Run("release gives claims back at once", func(t *testing.T) {
		t.Parallel()
		s, ctx := open(t), vecTestContext(t)
		vsSaveMemory(t, ctx, s, "t1", "u1", "drink", "likes tea", t0)
		vsPost(t, ctx, s, "t1", "u1", "c1", t0, "user: hello")
		vsClaimMemories(t, ctx, s, claim("w1", t0, 10))
		vsClaimMessages(t, ctx, s, claim("w1", t0, 10))
		if err := s.Sync.Release(ctx, "w1"); err != nil {
			t.Fatal(err)
		}
		if got := vsClaimMemories(t, ctx, s, claim("w2", t0, 10)); len(got) != 1 {
			t.Fatalf("memory after release: %d claimed", len(got))
		}
		if got := vsClaimMessages(t, ctx, s, claim("w2", t0, 10)); len(got) != 1 {
			t.Fatalf("message after release: %d claimed", len(got))
		}
	})

	t.Run("requeue marks one tenant dirty, forgets memory hashes and frees claims", func(t *testing.T) {
		t.Parallel()
		s, ctx := open(t), vecTestContext(t)
		m := vsSaveMemory(t, ctx, s, "t1", "u1", "drink", "likes tea", t0)
		other := vsSaveMemory(t, ctx, s, "t2", "u1", "drink", "likes tea", t0)
		vsPost(t, ctx, s, "t1", "u1", "c1", t0, "user: hello", "assistant: hi")
		vsPost(t, ctx, s, "t2", "u1", "c1", t0, "user: hello")
		for _, c := range vsClaimMemories(t, ctx, s, claim("w1", t0, 10)) {
			st := c.Memory.MarkVectorSynced("model-a", int(c.Memory.Version()), "hash", t0)
			vsFinishMemory(t, ctx, s, "w1", c.Memory, st.Vector())
		}
		msgs := vsClaimMessages(t, ctx, s, claim("w1", t0, 10))
		var outs []ports.MessageVectorOutcome
		for _, mv := range msgs {
			outs = append(outs, ports.MessageVectorOutcome{Seq: mv.Message.Seq, Status: memory.VectorSynced, SyncedAt: t0,
				Model: "model-a", TextHash: "h", Embedding: []float32{1, 2}})
		}
		if _, err := s.Sync.FinishMessages(ctx, "w1", outs); err != nil {
			t.Fatal(err)
		}
		vsPost(t, ctx, s, "t1", "u1", "c2", t0, "user: in flight")
		vsClaimMessages(t, ctx, s, claim("w9", t0, 10)) // a claim the requeue must release

		queued := t0.Add(time.Hour)
		n, err := s.Sync.Requeue(ctx, "t1", queued)
		if err != nil || n.Memories != 1 || n.Messages != 3 {
			t.Fatalf("Requeue(t1) = %+v, %v; want 1 memory and 3 messages", n, err)
		}
		got, _ := s.Memories.Get(ctx, m.Scope(), m.Key())
		if got.Vector().Status != memory.VectorDirty || got.Vector().TextHash != "" {
			t.Fatalf("requeued memory %+v, want DIRTY without a hash", got.Vector())
		}
		if o, _ := s.Memories.Get(ctx, other.Scope(), other.Key()); o.Vector().Status != memory.VectorSynced {
			t.Fatalf("tenant t2's memory is %s after t1's requeue", o.Vector().Status)
		}
		mems := vsClaimMemories(t, ctx, s, claim("w2", queued, 10))
		if len(mems) != 1 || !mems[0].DirtySince.Equal(queued) {
			t.Fatalf("after requeue: %+v, want t1's memory dirty since the requeue", mems)
		}
		again := vsClaimMessages(t, ctx, s, claim("w2", queued, 10))
		if len(again) != 3 {
			t.Fatalf("after requeue %d messages due, want t1's 3 (the claimed one released)", len(again))
		}
		for _, mv := range again {
			if mv.Message.ConversationID == "c1" && (mv.Model != "model-a" || len(mv.Embedding) != 2) {
				t.Fatalf("requeued message %+v lost its stored embedding", mv)
			}
		}
	})

	t.Run("messages are due with their conversation, in order, and held as a whole", func(t *testing.T) {
		t.Parallel()
		s, ctx := open(t), vecTestContext(t)
		a := vsPost(t, ctx, s, "t1", "u1", "a", t0, "user: a1", "assistant: a2", "user: a3")
		b := vsPost(t, ctx, s, "t1", "u1", "b", t0.Add(time.Minute), "user: b1")
		got := vsClaimMessages(t, ctx, s, claim("w1", t0.Add(time.Hour), 2))
		// Limit 2: a's oldest two messages; b is not reached.
		if ids := vsSeqs(got); fmt.Sprint(ids) != fmt.Sprint([]string{a[0].Seq, a[1].Seq}) {
			t.Fatalf("claimed %v, want a's first two messages", ids)
		}
		if got[0].Status != memory.VectorDirty || got[0].Embedding != nil || got[0].Message.Content != "a1" {
			t.Fatalf("claimed %+v", got[0])
		}
		// a is held by w1: w2 gets b only, not a's third message.
		got = vsClaimMessages(t, ctx, s, claim("w2", t0.Add(time.Hour), 10))
		if ids := vsSeqs(got); fmt.Sprint(ids) != fmt.Sprint([]string{b[0].Seq}) {
			t.Fatalf("second claimer got %v, want only b's message", ids)
		}
		// A new message in a held conversation waits too.
		vsPost(t, ctx, s, "t1", "u1", "a", t0.Add(2*time.Minute), "assistant: a4")
		if got := vsClaimMessages(t, ctx, s, claim("w3", t0.Add(time.Hour), 10)); len(got) != 0 {
			t.Fatalf("a held conversation was claimed again: %v", vsSeqs(got))
		}
		// Once w1 finishes, the rest of a is due, in order.
		vsFinishMessages(t, ctx, s, "w1", a[:2], memory.VectorSynced)
		got = vsClaimMessages(t, ctx, s, claim("w3", t0.Add(time.Hour), 10))
		if len(got) != 2 || got[0].Message.Content != "a3" || got[1].Message.Content != "a4" {
			t.Fatalf("after w1 finished: %v, want a3 then a4", vsSeqs(got))
		}
	})

	t.Run("the window reads margins around the claimed messages with stored embeddings", func(t *testing.T) {
		t.Parallel()
		s, ctx := open(t), vecTestContext(t)
		lines := make([]string, 9)
		for i := range lines {
			lines[i] = fmt.Sprintf("user: m%d", i)
		}
		msgs := vsPost(t, ctx, s, "t1", "u1", "c", t0, lines...)
		vsPost(t, ctx, s, "t1", "u1", "other", t0, "user: elsewhere")
		vsPost(t, ctx, s, "t1", "u2", "c", t0, "user: someone else")
		vsClaimMessages(t, ctx, s, claim("w1", t0.Add(time.Hour), 100))
		var outs []ports.MessageVectorOutcome
		for i, m := range msgs {
			outs = append(outs, ports.MessageVectorOutcome{Seq: m.Seq, Status: memory.VectorSynced, SyncedAt: t0,
				Model: "model-a", TextHash: fmt.Sprint(i), Embedding: []float32{float32(i), 1}})
		}
		if n, err := s.Sync.FinishMessages(ctx, "w1", outs); err != nil || n != len(msgs) {
			t.Fatalf("Finish = %d, %v", n, err)
		}
		win, err := s.Sync.MessageWindow(ctx, msgs[4], msgs[5], 2)
		if err != nil {
			t.Fatal(err)
		}
		if ids := vsSeqs(win); fmt.Sprint(ids) != fmt.Sprint(vsMsgSeqs(msgs[2:8])) {
			t.Fatalf("window %v, want m2..m7", ids)
		}
		for i, mv := range win {
			if mv.Status != memory.VectorSynced || mv.Model != "model-a" || mv.TextHash != fmt.Sprint(i+2) ||
				len(mv.Embedding) != 2 || mv.Embedding[0] != float32(i+2) {
				t.Fatalf("window[%d] = %+v", i, mv)
			}
		}
		edge, err := s.Sync.MessageWindow(ctx, msgs[0], msgs[0], 4)
		if err != nil || fmt.Sprint(vsSeqs(edge)) != fmt.Sprint(vsMsgSeqs(msgs[:5])) {
			t.Fatalf("window at the start = %v, %v; want m0..m4", vsSeqs(edge), err)
		}
	})

	t.Run("a failed message keeps its embedding and waits for its retry", func(t *testing.T) {
		t.Parallel()
		s, ctx := open(t), vecTestContext(t)
		msgs := vsPost(t, ctx, s, "t1", "u1", "c", t0, "user: hello")
		vsClaimMessages(t, ctx, s, claim("w1", t0, 10))
		retry := t0.Add(time.Minute)
		n, err := s.Sync.FinishMessages(ctx, "w1", []ports.MessageVectorOutcome{{
			Seq: msgs[0].Seq, Status: memory.VectorFailed, Error: "upsert: down", Attempts: 1, NextAttempt: retry,
			Model: "model-a", TextHash: "h", Embedding: []float32{3, 4},
		}})
		if err != nil || n != 1 {
			t.Fatalf("Finish = %d, %v", n, err)
		}
		if b := vsBacklog(t, ctx, s); b.FailedMessages != 1 || b.DirtyMessages != 0 {
			t.Fatalf("backlog %+v", b)
		}
		if got := vsClaimMessages(t, ctx, s, claim("w1", retry.Add(-time.Second), 10)); len(got) != 0 {
			t.Fatal("due before its retry time")
		}
		got := vsClaimMessages(t, ctx, s, claim("w1", retry, 10))
		if len(got) != 1 || got[0].Status != memory.VectorFailed || got[0].Attempts != 1 || got[0].Model != "model-a" ||
			len(got[0].Embedding) != 2 || got[0].Embedding[1] != 4 {
			t.Fatalf("at the retry time: %+v", got)
		}
	})

	t.Run("concurrent claimers never share a memory or a conversation", func(t *testing.T) {
		t.Parallel()
		s, ctx := open(t), vecTestContext(t)
		for i := range 40 {
			vsSaveMemory(t, ctx, s, "t1", fmt.Sprintf("u%d", i%4), fmt.Sprintf("k%d", i), "text", t0)
		}
		for c := range 12 {
			vsPost(t, ctx, s, "t1", "u1", fmt.Sprintf("c%d", c), t0, "user: one", "assistant: two", "user: three")
		}
		var (
			mu       sync.Mutex
			memSeen  = map[string]string{}
			convSeen = map[string]string{}
			wg       sync.WaitGroup
		)
		for w := range 4 {
			worker := fmt.Sprintf("w%d", w)
			wg.Add(1)
			go func() {
				defer wg.Done()
				for range 20 {
					mems, err := s.Sync.ClaimMemories(ctx, claim(worker, t0, 3))
					if err != nil {
						t.Errorf("%s: claim memories: %v", worker, err)
						return
					}
					msgs, err := s.Sync.ClaimMessages(ctx, claim(worker, t0, 3))
					if err != nil {
						t.Errorf("%s: claim messages: %v", worker, err)
						return
					}
					mu.Lock()
					for _, c := range mems {
						if prev, ok := memSeen[c.Memory.ID()]; ok {
							t.Errorf("memory %s claimed by %s and %s", c.Memory.ID(), prev, worker)
						}
						memSeen[c.Memory.ID()] = worker
					}
					for _, mv := range msgs {
						conv := mv.Message.ConversationID
						if prev, ok := convSeen[conv]; ok && prev != worker {
							t.Errorf("conversation %s held by %s and %s", conv, prev, worker)
						}
						convSeen[conv] = worker
					}
					mu.Unlock()
				}
			}()
		}
		wg.Wait()
		if len(memSeen) != 40 || len(convSeen) != 12 {
			t.Fatalf("claimed %d memories and %d conversations, want all 40 and 12", len(memSeen), len(convSeen))
		}
	})

	t.Run("backlog counts and ages what waits", func(t *testing.T) {
		t.Parallel()
		s, ctx := open(t), vecTestContext(t)
		vsSaveMemory(t, ctx, s, "t1", "u1", "a", "text", t0.Add(time.Minute))
		vsPost(t, ctx, s, "t1", "u1", "c", t0, "user: hello", "assistant: hi")
		b := vsBacklog(t, ctx, s)
		if b.DirtyMemories != 1 || b.DirtyMessages != 2 || b.FailedMemories != 0 || b.FailedMessages != 0 {
			t.Fatalf("backlog %+v", b)
		}
		if want := t0.Add(time.Second); !b.OldestDirty.Equal(want) {
			t.Fatalf("oldest %s, want the first message's arrival %s", b.OldestDirty, want)
		}
	})
}

func vsSaveMemory(t *testing.T, ctx context.Context, s VectorQueueStores, tenant, user, key, content string, at time.Time) memory.Memory {
	t.Helper()
	scope := memory.Scope{Tenant: tenant, User: user}
	k, err := memory.ParseKey(key)
	if err != nil {
		t.Fatal(err)
	}
	d, err := memory.ParseDraft(memory.DraftInput{Type: "fact", Content: content}, memory.Source{Channel: memory.ChannelTool})
	if err != nil {
		t.Fatal(err)
	}
	m, err := s.Memories.Update(ctx, scope, k, func(cur *memory.Memory) (memory.Change, error) {
		if cur == nil {
			m, err := memory.New(vsID("m", tenant, user, key), scope, k, d, memory.Policy{}, at)
			return memory.Change{Memory: m, Event: memory.NewEvent(vsID("e", tenant, user, key, at.String()), memory.OpAdd, nil, m)}, err
		}
		next, err := cur.Replace(d, memory.Policy{}, at)
		return memory.Change{Memory: next, Event: memory.NewEvent(vsID("e", tenant, user, key, at.String()), memory.OpUpdate, cur, next)}, err
	})
	if err != nil {
		t.Fatalf("save memory %s: %v", key, err)
	}
	return m
}

var (
	vsIDMu sync.Mutex
	vsIDN  int
)

// vsID makes a unique id that sorts by creation.
func vsID(prefix string, _ ...string) string {
	vsIDMu.Lock()
	defer vsIDMu.Unlock()
	vsIDN++
	return fmt.Sprintf("%s%08d", prefix, vsIDN)
}

// vsPost stores one conversation's messages, "role: content", one second apart
// from at+1s.
func vsPost(t *testing.T, ctx context.Context, s VectorQueueStores, tenant, user, conv string, at time.Time, lines ...string) []conversation.Message {
	t.Helper()
	scope := memory.Scope{Tenant: tenant, User: user}
	var msgs []conversation.Message
	for i, line := range lines {
		role, content, _ := cutLine(line)
		when := at.Add(time.Duration(i+1) * time.Second)
		m, err := conversation.New(scope, conversation.Input{ConversationID: conv, Role: role, Content: content, CreatedAt: when}, vsID("s"), when, 0)
		if err != nil {
			t.Fatal(err)
		}
		msgs = append(msgs, m)
	}
	if _, err := s.Messages.Ingest(ctx, scope, msgs); err != nil {
		t.Fatalf("ingest: %v", err)
	}
	return msgs
}

func cutLine(line string) (string, string, bool) {
	for i := 0; i+1 < len(line); i++ {
		if line[i] == ':' && line[i+1] == ' ' {
			return line[:i], line[i+2:], true
		}
	}
	return "user", line, false
}

func vsClaimMemories(t *testing.T, ctx context.Context, s VectorQueueStores, c ports.VectorClaim) []ports.ClaimedMemory {
	t.Helper()
	got, err := s.Sync.ClaimMemories(ctx, c)
	if err != nil {
		t.Fatalf("ClaimMemories: %v", err)
	}
	return got
}

func vsClaimMessages(t *testing.T, ctx context.Context, s VectorQueueStores, c ports.VectorClaim) []ports.MessageVector {
	t.Helper()
	got, err := s.Sync.ClaimMessages(ctx, c)
	if err != nil {
		t.Fatalf("ClaimMessages: %v", err)
	}
	return got
}

func vsFinishMemory(t *testing.T, ctx context.Context, s VectorQueueStores, worker string, m memory.Memory, v memory.VectorState) {
	t.Helper()
	if n, err := s.Sync.FinishMemories(ctx, worker, []ports.MemoryVectorOutcome{{ID: m.ID(), Version: m.Version(), Vector: v}}); err != nil || n != 1 {
		t.Fatalf("FinishMemories = %d, %v", n, err)
	}
}

func vsFinishMessages(t *testing.T, ctx context.Context, s VectorQueueStores, worker string, msgs []conversation.Message, status memory.VectorStatus) {
	t.Helper()
	var outs []ports.MessageVectorOutcome
	for _, m := range msgs {
		outs = append(outs, ports.MessageVectorOutcome{Seq: m.Seq, Status: status})
	}
	if n, err := s.Sync.FinishMessages(ctx, worker, outs); err != nil || n != len(msgs) {
		t.Fatalf("FinishMessages = %d, %v; want %d", n, err, len(msgs))
	}
}

func vsBacklog(t *testing.T, ctx context.Context, s VectorQueueStores) ports.VectorBacklog {
	t.Helper()
	b, err := s.Sync.Backlog(ctx)
	if err != nil {
		t.Fatalf("VectorBacklog: %v", err)
	}
	return b
}

func vsSeqs(mvs []ports.MessageVector) []string {
	out := make([]string, len(mvs))
	for i, mv := range mvs {
		out[i] = mv.Message.Seq
	}
	return out
}

func vsMsgSeqs(msgs []conversation.Message) []string {
	out := make([]string, len(msgs))
	for i, m := range msgs {
		out[i] = m.Seq
	}
	return out
}
