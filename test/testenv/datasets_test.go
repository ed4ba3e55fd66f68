package testenv

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// The skip of a test without the data says where it looked, why there, and where
// each missing file comes from.
func TestMissingDatasets_saysWhereItLookedAndWhereToGetTheData(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	got := missingDatasets(dir, "from "+DatasetsVar)
	for _, want := range []string{dir, "from " + DatasetsVar, "locomo/locomo_dev.json", "data/locomo10.json", "snap-research/LoCoMo",
		"memorybank/memory_bank_en.json", "eval_data", "zhongwanjun/MemoryBank-SiliconFriend", "set " + DatasetsVar, "docs/DEVELOPING.md"} {
		if !strings.Contains(got, want) {
			t.Errorf("the message lacks %q: %s", want, got)
		}
	}
	for _, f := range datasetFiles {
		if err := os.MkdirAll(filepath.Dir(filepath.Join(dir, f.path)), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, f.path), []byte("[]"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if got := missingDatasets(dir, "from "+DatasetsVar); got != "" {
		t.Errorf("with every file present: %q", got)
	}
}

func TestDatasetsPath_theVariableWinsElseNextToTheRepository(t *testing.T) {
	t.Setenv(DatasetsVar, "")
	dir, chosenBy, err := DatasetsPath()
	if err != nil || filepath.Base(dir) != "datasets" || filepath.Base(filepath.Dir(dir)) != "shared" || !strings.Contains(chosenBy, "unset") {
		t.Errorf("unset: %q (%s), %v", dir, chosenBy, err)
	}
	t.Setenv(DatasetsVar, "/data/engram-eval")
	if dir, chosenBy, err := DatasetsPath(); err != nil || dir != "/data/engram-eval" || !strings.Contains(chosenBy, DatasetsVar) {
		t.Errorf("set: %q (%s), %v", dir, chosenBy, err)
	}
}
