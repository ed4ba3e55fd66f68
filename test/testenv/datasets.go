package testenv

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// DatasetsVar names the directory of the evaluation data. Unset, the data is
// looked for in ../shared/datasets next to the repository root (the directory
// that holds go.mod).
const DatasetsVar = "ENGRAM_TEST_DATASETS_DIR"

// datasetFiles are what the tests read of the directory, and where each comes
// from (docs/DEVELOPING.md).
var datasetFiles = []struct{ path, source string }{
	{filepath.Join("locomo", "locomo_dev.json"),
		"LoCoMo conversations in the format of data/locomo10.json of github.com/snap-research/LoCoMo"},
	{filepath.Join("memorybank", "memory_bank_en.json"),
		"the eval_data directory of github.com/zhongwanjun/MemoryBank-SiliconFriend, as memorybank/"},
}

// DatasetsPath is the directory of the evaluation data, and how it was chosen:
// DatasetsVar when it is set, else ../shared/datasets next to the repository root.
func DatasetsPath() (dir, chosenBy string, err error) {
	if v := os.Getenv(DatasetsVar); v != "" {
		return v, "from " + DatasetsVar, nil
	}
	wd, err := os.Getwd()
	if err != nil {
		return "", "", err
	}
	for dir := wd; ; {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			return filepath.Join(dir, "..", "shared", "datasets"), DatasetsVar + " is unset, so ../shared/datasets next to the repository root", nil
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return "", "", fmt.Errorf("no go.mod above %s", wd)
		}
		dir = parent
	}
}

// DatasetsDir returns the directory of the evaluation data. A test skips, never
// fails, when the data is not there, saying where it looked and where to get it.
func DatasetsDir(t testing.TB) string {
	t.Helper()
	dir, chosenBy, err := DatasetsPath()
	if err != nil {
		t.Fatal(err)
	}
	if missing := missingDatasets(dir, chosenBy); missing != "" {
		t.Skip(missing)
	}
	return dir
}

// missingDatasets says which files of dir (chosen as chosenBy says) are absent
// and where to get them; "" when none is.
func missingDatasets(dir, chosenBy string) string {
	var missing []string
	for _, f := range datasetFiles {
		if _, err := os.Stat(filepath.Join(dir, f.path)); errors.Is(err, os.ErrNotExist) {
			missing = append(missing, f.path+" ("+f.source+")")
		}
	}
	if len(missing) == 0 {
		return ""
	}
	return fmt.Sprintf("datasets not found at %s (%s): missing %s; put them there or set %s to a directory that holds them (docs/DEVELOPING.md)",
		dir, chosenBy, strings.Join(missing, ", "), DatasetsVar)
}
