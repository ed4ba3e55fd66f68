package testenv

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
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

// MemoryBankTurn is one exchange of a MemoryBank user on one day.
type MemoryBankTurn struct {
	User, Day       string
	Index           int // the turn's place in its day
	Query, Response string
}

// MemoryBank reads one file of ../shared/datasets/memorybank ("memory_bank_en.json")
// in a stable order: user, then day, then turn.
func MemoryBank(t testing.TB, file string) []MemoryBankTurn {
	t.Helper()
	out, err := ReadMemoryBank(filepath.Join(DatasetsDir(t), "memorybank", file))
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// ReadMemoryBank reads a MemoryBank file at path (for programs, which have no
// testing.TB), in MemoryBank's order.
func ReadMemoryBank(path string) ([]MemoryBankTurn, error) {
	raw, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	var users map[string]struct {
		History map[string][]struct {
			Query    string `json:"query"`
			Response string `json:"response"`
		} `json:"history"`
	}
	if err := json.Unmarshal(raw, &users); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	var out []MemoryBankTurn
	for name, u := range users {
		for day, turns := range u.History {
			for i, turn := range turns {
				out = append(out, MemoryBankTurn{User: strings.TrimSpace(name), Day: day, Index: i, Query: turn.Query, Response: turn.Response})
			}
		}
	}
	sort.Slice(out, func(i, j int) bool {
		a, b := out[i], out[j]
		if a.User != b.User {
			return a.User < b.User
		}
		if a.Day != b.Day {
			return a.Day < b.Day
		}
		return a.Index < b.Index
	})
	return out, nil
}
