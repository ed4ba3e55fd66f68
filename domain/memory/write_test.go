package memory

import (
	"fmt"
	"strings"
	"testing"
	"time"
)

// counter names memories and events id1, id2, … in the order Write asks.
func counter() func() string {
	n := 0
	return func() string { n++; return fmt.Sprintf("id%d", n) }
}

func TestWrite_decidesWhatADraftDoesToItsKey(t *testing.T) {
	t.Parallel()
	key := MustParseKey("diet")
	stored := func(content string, ttlDays int) *Memory {
		m, err := New("m1", scope, key, mustDraft(t, DraftInput{Type: "fact", Content: content, TTLDays: ptr(ttlDays)}), Policy{}, t0)
		if err != nil {
			t.Fatal(err)
		}
		return &m
	}
	deleted := stored("vegetarian", 0).Deactivate(tool, t0)
	expiring := stored("vegetarian", 30)
	later := t0.Add(time.Hour)
	same := func(m Memory) bool { return m.Content() == "vegetarian" }
	tests := []struct {
		name     string
		current  *Memory
		content  string
		restates func(Memory) bool
		append   bool
		at       time.Time
		wantOK   bool
		wantOp   Op
		want     string
		wantMem  string // id of the memory written
	}{
		{name: "nothing stored: a new memory", content: "vegan", at: t0, wantOK: true, wantOp: OpAdd, want: "vegan", wantMem: "id1"},
		{name: "live: replaced", current: stored("vegetarian", 0), content: "vegan", at: later, wantOK: true, wantOp: OpUpdate, want: "vegan", wantMem: "m1"},
		{name: "deleted: written again is new to the user", current: &deleted, content: "vegan", at: later, wantOK: true, wantOp: OpAdd, want: "vegan", wantMem: "m1"},
		{name: "expired: written again is new to the user", current: expiring, content: "vegan", at: t0.AddDate(0, 0, 31), wantOK: true, wantOp: OpAdd, want: "vegan", wantMem: "m1"},
		{name: "restated with an expiry: renewed", current: stored("vegetarian", 30), content: "vegetarian", restates: same, at: later, wantOK: true, wantOp: OpUpdate, want: "vegetarian", wantMem: "m1"},
		{name: "restated without an expiry: nothing changes", current: stored("vegetarian", 0), content: "vegetarian", restates: same, at: later},
		{name: "restating a deleted memory brings it back", current: &deleted, content: "vegetarian", restates: same, at: later, wantOK: true, wantOp: OpAdd, want: "vegetarian", wantMem: "m1"},
		{name: "append to a live memory", current: stored("vegetarian", 0), content: "no eggs", append: true, at: later, wantOK: true, wantOp: OpAppend, want: "vegetarian\nno eggs", wantMem: "m1"},
		{name: "append too long: replaces", current: stored(strings.Repeat("a", 990), 0), content: "no eggs at all", append: true, at: later, wantOK: true, wantOp: OpUpdate, want: "no eggs at all", wantMem: "m1"},
		{name: "append to a deleted memory: replaces, new to the user", current: &deleted, content: "no eggs", append: true, at: later, wantOK: true, wantOp: OpAdd, want: "no eggs", wantMem: "m1"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			in := Intent{Scope: scope, Key: key, Draft: mustDraft(t, DraftInput{Type: "fact", Content: tt.content}), Restates: tt.restates, Append: tt.append}
			c, ok, err := Write(tt.current, in, Policy{}, counter(), tt.at)
			if err != nil {
				t.Fatal(err)
			}
			if ok != tt.wantOK {
				t.Fatalf("ok = %v, want %v (%+v)", ok, tt.wantOK, c)
			}
			if !ok {
				return
			}
			if c.Event.Op != tt.wantOp || c.Memory.Content() != tt.want || c.Memory.ID() != tt.wantMem || !c.Memory.IsLive(tt.at) {
				t.Errorf("wrote %s %q to %s (live %v), want %s %q to %s", c.Event.Op, c.Memory.Content(), c.Memory.ID(), c.Memory.IsLive(tt.at), tt.wantOp, tt.want, tt.wantMem)
			}
			if c.Event.After != c.Memory.State() || (tt.current == nil) != (c.Event.Before == nil) || !c.Memory.UpdatedAt().Equal(tt.at) {
				t.Errorf("the event does not record the change: %+v", c.Event)
			}
		})
	}
}

func TestWrite_refusesAnInvalidDraft(t *testing.T) {
	t.Parallel()
	in := Intent{Scope: scope, Key: MustParseKey("k"), Draft: Draft{Type: TypeFact, Content: " ", Importance: 3}}
	if _, ok, err := Write(nil, in, Policy{}, counter(), t0); err == nil || ok {
		t.Fatalf("an empty draft wrote (ok %v, err %v)", ok, err)
	}
}

func TestFold_endsTheCopyAndMergesItIntoTheSurvivor(t *testing.T) {
	t.Parallel()
	newMemory := func(key, content string, importance, ttlDays int, pinned bool) Memory {
		m, err := New("m-"+key, scope, MustParseKey(key), mustDraft(t, DraftInput{Type: "fact", Content: content,
			Importance: ptr(importance), TTLDays: ptr(ttlDays), Pinned: ptr(pinned)}), Policy{}, t0)
		if err != nil {
			t.Fatal(err)
		}
		return m
	}
	later := t0.Add(time.Hour)
	survivor := newMemory("diet", "vegetarian", 2, 30, false)
	copyOf := newMemory("food", "vegetarian", 4, 60, true)
	deleted := copyOf.Deactivate(tool, t0)
	variant := newMemory("diet_pref", "vegan", 1, 30, false)

	if _, ok := FoldOut(nil, tool, counter(), later); ok {
		t.Error("folded out a key that holds nothing")
	}
	if _, ok := FoldOut(&deleted, tool, counter(), later); ok {
		t.Error("folded out a deleted copy")
	}
	out, ok := FoldOut(&copyOf, tool, counter(), later)
	if !ok || out.Event.Op != OpDelete || out.Memory.Active() {
		t.Fatalf("fold out: %v %+v", ok, out)
	}

	for _, tt := range []struct {
		name     string
		survivor *Memory
		says     *Memory
		wantOK   bool
		want     string
	}{
		{name: "nothing under the survivor's key", survivor: nil},
		{name: "a deleted survivor", survivor: ptr(survivor.Deactivate(tool, t0))},
		{name: "keeps its content, takes the higher settings", survivor: &survivor, wantOK: true, want: "vegetarian"},
		{name: "a variant said later gives its content", survivor: &survivor, says: &variant, wantOK: true, want: "vegan"},
	} {
		c, ok := Fold(tt.survivor, copyOf, tt.says, tool, counter(), later)
		if ok != tt.wantOK {
			t.Errorf("%s: ok = %v, want %v", tt.name, ok, tt.wantOK)
			continue
		}
		if !ok {
			continue
		}
		m := c.Memory
		if c.Event.Op != OpMerge || m.Content() != tt.want || m.Importance() != 4 || m.TTLDays() != 60 || !m.Pinned() ||
			!m.ExpiresAt().Equal(later.AddDate(0, 0, 60)) || m.ID() != survivor.ID() || m.Version() != survivor.Version()+1 {
			t.Errorf("%s: merged into %+v (event %s)", tt.name, m.State(), c.Event.Op)
		}
	}
}
