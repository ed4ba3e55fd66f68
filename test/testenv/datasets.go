package testenv

import (
	"errors"
	"os"
	"path/filepath"
	"testing"
)

// DatasetsDir is ../shared/datasets next to the repository root (the directory that
// holds go.mod). A test skips when the datasets are not there.
func DatasetsDir(t testing.TB) string {
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
