// Package memorybank reads the MemoryBank / SiliconFriend evaluation data
// (zhongwanjun/MemoryBank-SiliconFriend eval_data, kept outside the repository in
// the memorybank directory of testenv.DatasetsPath: ENGRAM_TEST_DATASETS_DIR, else
// ../shared/datasets) for tests and benchmarks: each user's dated conversations of
// query/response turns.
package memorybank

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"engram/test/testenv"
)

// Files of the data set.
const (
	English = "memory_bank_en.json"
	Chinese = "memory_bank_cn.json"
)

// ErrMissing says the data is not where it was looked for.
var ErrMissing = errors.New("MemoryBank data not found (put the eval_data directory of github.com/zhongwanjun/MemoryBank-SiliconFriend " +
	"at memorybank/ of the datasets directory: " + testenv.DatasetsVar + ", else ../shared/datasets next to the repository)")

// Day is one user's conversation of one day.
type Day struct {
	User, Date string
	Turns      []Turn
}

// Turn is one user query and the assistant's response.
type Turn struct{ Query, Response string }

// Dir is the data directory: memorybank/ of testenv.DatasetsPath.
func Dir() (string, error) {
	dir, _, err := testenv.DatasetsPath()
	if err != nil {
		return "", err
	}
	return filepath.Join(dir, "memorybank"), nil
}

// Load reads one file: users (spaces in names become "_") and days in order, days
// without turns left out. A missing file is ErrMissing.
func Load(dir, file string) ([]Day, error) {
	raw, err := os.ReadFile(filepath.Join(dir, file))
	if errors.Is(err, os.ErrNotExist) {
		return nil, fmt.Errorf("%w: %v", ErrMissing, err)
	}
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
		return nil, fmt.Errorf("%s: %w", file, err)
	}
	var out []Day
	for name, u := range users {
		for date, turns := range u.History {
			d := Day{User: strings.ReplaceAll(strings.TrimSpace(name), " ", "_"), Date: date}
			for _, t := range turns {
				d.Turns = append(d.Turns, Turn{t.Query, t.Response})
			}
			if len(d.Turns) > 0 {
				out = append(out, d)
			}
		}
	}
	sort.Slice(out, func(i, j int) bool {
		if out[i].User != out[j].User {
			return out[i].User < out[j].User
		}
		return out[i].Date < out[j].Date
	})
	return out, nil
}

// Queries are the user queries of the days, in order.
func Queries(days []Day) []string {
	var out []string
	for _, d := range days {
		for _, t := range d.Turns {
			out = append(out, t.Query)
		}
	}
	return out
}

// ForTest loads a file next to the repository for a test or benchmark, which
// skips (never fails) when the data is absent.
func ForTest(tb testing.TB, file string) []Day {
	tb.Helper()
	dir, err := Dir()
	if err != nil {
		tb.Fatal(err)
	}
	days, err := Load(dir, file)
	if errors.Is(err, ErrMissing) {
		tb.Skip(err)
	}
	if err != nil {
		tb.Fatal(err)
	}
	return days
}
