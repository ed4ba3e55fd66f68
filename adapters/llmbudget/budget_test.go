package llmbudget_test

import (
	"testing"
	"time"

	"engram/adapters/llmbudget"
)

var t0 = time.Date(2026, 12, 1, 9, 0, 0, 0, time.UTC)

func TestTake_spendsAMinutesCallsThenRefillsAtTheRate(t *testing.T) {
	t.Parallel()
	b := llmbudget.New(6) // one call every 10 s, six at once at most
	for i := range 6 {
		if ok, _ := b.Take("t1", t0); !ok {
			t.Fatalf("call %d of a full minute was refused", i+1)
		}
	}
	ok, next := b.Take("t1", t0)
	if ok || !next.Equal(t0.Add(10*time.Second)) {
		t.Fatalf("seventh call: ok=%v next=%v, want refused until %v", ok, next, t0.Add(10*time.Second))
	}
	if ok, _ := b.Take("t1", t0.Add(9*time.Second)); ok {
		t.Error("allowed before the bucket refilled one call")
	}
	if ok, _ := b.Take("t1", t0.Add(10*time.Second)); !ok {
		t.Error("refused once one call had refilled")
	}
}

func TestTake_tenantsHaveTheirOwnBudgets(t *testing.T) {
	t.Parallel()
	b := llmbudget.New(1)
	if ok, _ := b.Take("t1", t0); !ok {
		t.Fatal("t1's first call refused")
	}
	if ok, _ := b.Take("t1", t0); ok {
		t.Error("t1 over budget but allowed")
	}
	if ok, _ := b.Take("t2", t0); !ok {
		t.Error("t2 refused because of t1's calls")
	}
}

func TestTake_zeroIsUnlimited(t *testing.T) {
	t.Parallel()
	b := llmbudget.New(0)
	for range 1000 {
		if ok, _ := b.Take("t1", t0); !ok {
			t.Fatal("an unlimited budget refused a call")
		}
	}
}
