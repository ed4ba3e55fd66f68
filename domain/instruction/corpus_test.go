package instruction_test

import (
	"encoding/json"
	"os"
	"path/filepath"
	"sort"
	"testing"

	"engram/domain/instruction"
	"engram/test/memorybank"
	"engram/test/testenv"
)

// corpusTexts returns the benign messages of the shared datasets by corpus name: every
// LoCoMo turn (people talking about their lives, English) and every MemoryBank user
// query and assistant reply (English and Chinese).
func corpusTexts(t *testing.T) map[string][]string {
	t.Helper()
	ds := testenv.DatasetsDir(t)
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
		for _, day := range memorybank.ForTest(t, file) {
			for _, turn := range day.Turns {
				out["memorybank "+lang+" user"] = append(out["memorybank "+lang+" user"], turn.Query)
				out["memorybank "+lang+" assistant"] = append(out["memorybank "+lang+" assistant"], turn.Response)
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
