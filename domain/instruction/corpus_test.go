package instruction_test

import (
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"sort"
	"testing"

	"engram/domain/instruction"
)

// datasetsDir is ../shared/datasets next to the repository root (the directory that
// holds go.mod).
func datasetsDir(t *testing.T) string {
	t.Helper()
	dir, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			break
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			t.Fatal("no go.mod above the test directory")
		}
		dir = parent
	}
	ds := filepath.Join(dir, "..", "shared", "datasets")
	if _, err := os.Stat(ds); errors.Is(err, os.ErrNotExist) {
		t.Skipf("datasets not found at %s", ds)
	}
	return ds
}

// corpusTexts returns the benign messages of the shared datasets by corpus name: every
// LoCoMo turn (people talking about their lives, English) and every MemoryBank user
// query and assistant reply (English and Chinese).
func corpusTexts(t *testing.T) map[string][]string {
	t.Helper()
	ds := datasetsDir(t)
	out := map[string][]string{}

	raw, err := os.ReadFile(filepath.Join(ds, "locomo", "locomo_dev.json"))
	if err != nil {
		t.Fatal(err)
	}
	var convs []struct {
		Conversation map[string]json.RawMessage `json:"conversation"`
	}
	if err := json.Unmarshal(raw, &convs); err != nil {
		t.Fatal(err)
	}
	for _, c := range convs {
		for _, v := range c.Conversation {
			var turns []struct {
				Text string `json:"text"`
			}
			if json.Unmarshal(v, &turns) != nil {
				continue // speaker names and dates
			}
			for _, turn := range turns {
				out["locomo en"] = append(out["locomo en"], turn.Text)
			}
		}
	}
	for lang, file := range map[string]string{"en": "memory_bank_en.json", "zh": "memory_bank_cn.json"} {
		raw, err := os.ReadFile(filepath.Join(ds, "memorybank", file))
		if err != nil {
			t.Fatal(err)
		}
		var users map[string]struct {
			History map[string][]struct {
				Query    string `json:"query"`
				Response string `json:"response"`
			} `json:"history"`
		}
		if err := json.Unmarshal(raw, &users); err != nil {
			t.Fatal(err)
		}
		for _, u := range users {
			for _, day := range u.History {
				for _, turn := range day {
					out["memorybank "+lang+" user"] = append(out["memorybank "+lang+" user"], turn.Query)
					out["memorybank "+lang+" assistant"] = append(out["memorybank "+lang+" assistant"], turn.Response)
				}
			}
		}
	}
	return out
}

// MaxCorpusFlagged is the share of ordinary conversation the classifier may flag.
const MaxCorpusFlagged = 0.002

// Ordinary conversation, thousands of turns none of which tries to instruct the
// assistant, is almost never flagged.
func TestCorpus_ordinaryConversationIsNotFlagged(t *testing.T) {
	t.Parallel()
	corpora := corpusTexts(t)
	names := make([]string, 0, len(corpora))
	for n := range corpora {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, name := range names {
		texts := corpora[name]
		if len(texts) < 100 {
			t.Fatalf("%s: only %d texts loaded", name, len(texts))
		}
		flagged := 0
		for _, text := range texts {
			if v := instruction.Classify(text); v.InstructionLike() {
				flagged++
				t.Logf("%s flagged: %q → %+v", name, text, v)
			}
		}
		share := float64(flagged) / float64(len(texts))
		t.Logf("%-24s %6d texts, %3d flagged (%.4f)", name, len(texts), flagged, share)
		if share > MaxCorpusFlagged {
			t.Errorf("%s: %.4f of ordinary messages flagged, at most %.4f allowed", name, share, MaxCorpusFlagged)
		}
	}
}
