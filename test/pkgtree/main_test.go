package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestTree_isCurrent fails when docs/DEVELOPING.md's package tree is not what
// `go list` says today, or when a package has no doc comment.
func TestTree_isCurrent(t *testing.T) {
	t.Parallel()
	root := filepath.Join("..", "..")
	pkgs, err := list(root)
	if err != nil {
		t.Fatal(err)
	}
	if len(pkgs) < 50 {
		t.Fatalf("go list found %d packages: not the module", len(pkgs))
	}
	if missing := undocumented(pkgs); len(missing) > 0 {
		t.Errorf("packages without a doc comment (start one file with \"// Package name …\"): %s", strings.Join(missing, ", "))
	}
	text, err := os.ReadFile(filepath.Join(root, doc))
	if err != nil {
		t.Fatal(err)
	}
	want, err := splice(text, render(pkgs))
	if err != nil {
		t.Fatal(err)
	}
	if string(want) != string(text) {
		t.Errorf("the package tree in %s is stale: run `go run ./test/pkgtree` at the repository root", doc)
	}
}

func TestRender_nestsPackagesUnderTheirDirectories(t *testing.T) {
	t.Parallel()
	got := render([]pkg{
		{"", "Command engram is a memory service."},
		{"adapters/rules", "Package rules is the offline extractor."},
		{"adapters/rules/gate", "Package gate is the extract gate."},
		{"adapters/sqlstore", "Package sqlstore keeps the truth in SQL."},
		{"domain/memory", "Package memory is a user's memory."},
	})
	want := "- `engram` (main.go): Command engram is a memory service.\n" +
		"- `adapters/`\n" +
		"  - `rules`: Package rules is the offline extractor.\n" +
		"    - `gate`: Package gate is the extract gate.\n" +
		"  - `sqlstore`: Package sqlstore keeps the truth in SQL.\n" +
		"- `domain/`\n" +
		"  - `memory`: Package memory is a user's memory.\n"
	if got != want {
		t.Errorf("render:\n%s\nwant:\n%s", got, want)
	}
}

func TestSplice_replacesOnlyBetweenTheMarkers(t *testing.T) {
	t.Parallel()
	text := "intro\n" + begin + "\nold tree\n" + end + "\nafter\n"
	got, err := splice([]byte(text), "- new\n")
	if err != nil {
		t.Fatal(err)
	}
	if want := "intro\n" + begin + "\n- new\n" + end + "\nafter\n"; string(got) != want {
		t.Errorf("splice = %q, want %q", got, want)
	}
	if _, err := splice([]byte("no markers"), "x"); err == nil {
		t.Error("splice accepted a text without markers")
	}
}
