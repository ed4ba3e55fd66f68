package erasure

import (
	"errors"
	"slices"
	"strings"
	"testing"
	"time"

	"engram/domain/invalid"
	"engram/domain/memory"
)

func TestNewPlan_truthStepsRunBeforeDerivedOnesInRegistrationOrder(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name  string
		steps []Step
		want  []string
	}{
		{"already ordered", []Step{{"sql", PhaseTruth}, {"vectors", PhaseDerived}}, []string{"sql", "vectors"}},
		{"derived registered first", []Step{{"lexical", PhaseDerived}, {"sql", PhaseTruth}, {"vectors", PhaseDerived}, {"sessions", PhaseTruth}},
			[]string{"sql", "sessions", "lexical", "vectors"}},
		{"nothing registered", nil, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p, err := NewPlan(tt.steps)
			if err != nil {
				t.Fatal(err)
			}
			var got []string
			for _, s := range p.Steps {
				got = append(got, s.Name)
			}
			if !slices.Equal(got, tt.want) {
				t.Errorf("order %v, want %v", got, tt.want)
			}
		})
	}
}

func TestNewPlan_refusesNamelessDuplicateAndUnknownSteps(t *testing.T) {
	t.Parallel()
	for name, steps := range map[string][]Step{
		"no name":       {{" ", PhaseTruth}},
		"duplicate":     {{"sql", PhaseTruth}, {"sql", PhaseDerived}},
		"unknown phase": {{"sql", Phase(7)}},
	} {
		if _, err := NewPlan(steps); err == nil {
			t.Errorf("%s: no error", name)
		}
	}
}

func TestTally_addsStepsAndKeepsZeroKinds(t *testing.T) {
	t.Parallel()
	total := Tally(nil, map[string]int64{"memories": 3, "messages": 0})
	total = Tally(total, map[string]int64{"memories": 2, "vectors": 7})
	want := map[string]int{"memories": 5, "messages": 0, "vectors": 7}
	if len(total) != len(want) {
		t.Fatalf("total %v, want %v", total, want)
	}
	for k, v := range want {
		if total[k] != v {
			t.Errorf("total %v, want %v", total, want)
		}
	}
}

func TestCascadeKeys_eachKeyOnceInOrderOfItsFirstEvent(t *testing.T) {
	t.Parallel()
	key := func(raw string) memory.Key {
		k, err := memory.ParseKey(raw)
		if err != nil {
			t.Fatal(err)
		}
		return k
	}
	ev := func(raw string) memory.Event { return memory.Event{Key: key(raw)} }
	got := CascadeKeys([]memory.Event{ev("diet"), ev("city"), ev("diet"), ev("pet")})
	if want := []memory.Key{key("diet"), key("city"), key("pet")}; !slices.Equal(got, want) {
		t.Errorf("keys %v, want %v", got, want)
	}
	if got := CascadeKeys(nil); len(got) != 0 {
		t.Errorf("no events: %v", got)
	}
}

func TestBusyBackoff_growsAndIsCapped(t *testing.T) {
	t.Parallel()
	tests := []struct {
		attempt int
		want    time.Duration
	}{{-1, 50 * time.Millisecond}, {0, 50 * time.Millisecond}, {1, 100 * time.Millisecond}, {3, 400 * time.Millisecond}, {6, 2 * time.Second}, {60, 2 * time.Second}}
	for _, tt := range tests {
		if got := BusyBackoff(tt.attempt); got != tt.want {
			t.Errorf("BusyBackoff(%d) = %v, want %v", tt.attempt, got, tt.want)
		}
	}
}

func TestRetryDelay_doublesFromFiveSecondsToFiveMinutes(t *testing.T) {
	t.Parallel()
	tests := []struct {
		attempts int
		want     time.Duration
	}{{0, 5 * time.Second}, {1, 5 * time.Second}, {2, 10 * time.Second}, {4, 40 * time.Second}, {7, 5 * time.Minute}, {100, 5 * time.Minute}}
	for _, tt := range tests {
		if got := RetryDelay(tt.attempts); got != tt.want {
			t.Errorf("RetryDelay(%d) = %v, want %v", tt.attempts, got, tt.want)
		}
	}
}

func TestParseActor(t *testing.T) {
	t.Parallel()
	if got, err := ParseActor("  "); err != nil || got != DefaultActor {
		t.Errorf("empty = %q, %v; want %q", got, err, DefaultActor)
	}
	if got, err := ParseActor(" dpo@acme "); err != nil || got != "dpo@acme" {
		t.Errorf("named = %q, %v", got, err)
	}
	for _, bad := range []string{"a\x00b", strings.Repeat("x", 129)} {
		_, err := ParseActor(bad)
		var ve *invalid.Error
		if !errors.As(err, &ve) || ve.Fields[0].Field != "X-Acting-User" {
			t.Errorf("ParseActor(%q) = %v, want a validation error naming X-Acting-User", bad, err)
		}
	}
}

func TestLearnedOnlyFrom_aChatsMemoriesAreThoseNoOneElseWrote(t *testing.T) {
	t.Parallel()
	from := func(op memory.Op, conv string) memory.Event {
		return memory.Event{Op: op, Source: memory.Source{Channel: memory.ChannelExtraction, ConversationID: conv}}
	}
	tool := memory.Event{Op: memory.OpUpdate, Source: memory.Source{Channel: memory.ChannelTool}}
	tests := []struct {
		name    string
		history []memory.Event
		want    bool
	}{
		{"added and updated from the chat", []memory.Event{from(memory.OpAdd, "s1"), from(memory.OpAppend, "s1")}, true},
		{"deleted by a tool afterwards: a delete brings no content", []memory.Event{from(memory.OpAdd, "s1"),
			{Op: memory.OpDelete, Source: memory.Source{Channel: memory.ChannelTool}}}, true},
		{"another chat updated it", []memory.Event{from(memory.OpAdd, "s1"), from(memory.OpUpdate, "s2")}, false},
		{"learned elsewhere, merged from the chat", []memory.Event{from(memory.OpAdd, "s2"), from(memory.OpMerge, "s1")}, false},
		{"a tool rewrote it", []memory.Event{from(memory.OpAdd, "s1"), tool}, false},
		{"no event brought content", []memory.Event{{Op: memory.OpPurge}}, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			if got := LearnedOnlyFrom("s1", tt.history); got != tt.want {
				t.Errorf("LearnedOnlyFrom = %v, want %v", got, tt.want)
			}
		})
	}
}
