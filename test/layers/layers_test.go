package layers

import (
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// floors are engram's layers, lowest first: a package imports engram packages of
// its own floor or below, never above. configs and migrations are embedded
// resources the adapters and bootstrap read.
var floors = []struct {
	prefix string
	floor  int
}{
	{"engram/domain", 0},
	{"engram/ports", 1},
	{"engram/app", 2},
	{"engram/adapters", 3},
	{"engram/configs", 3},
	{"engram/migrations", 3},
	{"engram/bootstrap", 4},
	{"engram", 5}, // the command
}

var floorNames = []string{"domain", "ports", "app", "adapters", "bootstrap", "main"}

func under(path, prefix string) bool { return path == prefix || strings.HasPrefix(path, prefix+"/") }

func floorOf(path string) int {
	for _, f := range floors {
		if under(path, f.prefix) {
			return f.floor
		}
	}
	return -1
}

// stdlib reports whether an import path is the standard library's: its first
// element has no dot.
func stdlib(path string) bool {
	first, _, _ := strings.Cut(path, "/")
	return !strings.Contains(first, ".")
}

// violation says what rule pkg breaks by importing imp, "" when none.
func violation(pkg, imp string) string {
	switch {
	case under(imp, "engram/test"):
		return "production code imports test code"
	case under(imp, "engram"):
		if floorOf(imp) > floorOf(pkg) {
			return "imports up a floor (" + floorNames[floorOf(pkg)] + " → " + floorNames[floorOf(imp)] + ")"
		}
	case under(pkg, "engram/domain") && !stdlib(imp) && !under(imp, "golang.org/x/text"):
		return "domain imports only the standard library and golang.org/x/text"
	case (under(imp, "go.uber.org/fx") || under(imp, "go.uber.org/dig")) && !under(pkg, "engram/bootstrap"):
		return "fx is bootstrap's alone"
	}
	return ""
}

func TestViolation_namesEachRule(t *testing.T) {
	t.Parallel()
	tests := []struct{ pkg, imp, want string }{
		{"engram/domain/memory", "strings", ""},
		{"engram/domain/memory", "golang.org/x/text/unicode/norm", ""},
		{"engram/domain/memory", "engram/domain/invalid", ""},
		{"engram/domain/memory", "github.com/google/uuid", "domain imports only"},
		{"engram/domain/memory", "engram/ports", "imports up a floor (domain → ports)"},
		{"engram/ports", "engram/domain/memory", ""},
		{"engram/app/memories", "engram/ports", ""},
		{"engram/app/memories", "engram/adapters/sqlstore", "imports up a floor (app → adapters)"},
		{"engram/app/memories", "engram/bootstrap/config", "imports up a floor (app → bootstrap)"},
		{"engram/adapters/sqlstore", "engram/migrations", ""},
		{"engram/adapters/httpapi", "engram/app/memories", ""},
		{"engram/adapters/httpapi", "go.uber.org/fx", "fx is bootstrap's alone"},
		{"engram/app/indexing", "go.uber.org/dig", "fx is bootstrap's alone"},
		{"engram/bootstrap", "go.uber.org/fx", ""},
		{"engram/bootstrap", "engram/adapters/sqlstore", ""},
		{"engram/adapters/llm", "engram/test/fakellm", "production code imports test code"},
		{"engram", "engram/bootstrap", ""},
	}
	for _, tt := range tests {
		if got := violation(tt.pkg, tt.imp); !strings.HasPrefix(got, tt.want) || (tt.want == "") != (got == "") {
			t.Errorf("violation(%s, %s) = %q, want %q", tt.pkg, tt.imp, got, tt.want)
		}
	}
}

// TestLayers_productionImportsKeepTheFloors reads every production file's imports
// (non-test Go files outside test/) and fails on each that breaks a rule.
func TestLayers_productionImportsKeepTheFloors(t *testing.T) {
	t.Parallel()
	root, err := filepath.Abs("../..")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(root, "go.mod")); err != nil {
		t.Fatalf("no go.mod at %s: %v", root, err)
	}
	var bad []string
	files := 0
	fset := token.NewFileSet()
	err = filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(root, path)
		rel = filepath.ToSlash(rel)
		if d.IsDir() {
			name := d.Name()
			if rel != "." && (rel == "test" || name == "testdata" || name == "node_modules" || strings.HasPrefix(name, ".")) {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(rel, ".go") || strings.HasSuffix(rel, "_test.go") {
			return nil
		}
		f, err := parser.ParseFile(fset, path, nil, parser.ImportsOnly)
		if err != nil {
			return err
		}
		files++
		pkg := "engram"
		if dir := filepath.ToSlash(filepath.Dir(rel)); dir != "." {
			pkg += "/" + dir
		}
		for _, spec := range f.Imports {
			imp, _ := strconv.Unquote(spec.Path.Value)
			if why := violation(pkg, imp); why != "" {
				bad = append(bad, rel+": imports "+imp+": "+why)
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if files < 100 {
		t.Fatalf("read %d production files under %s: the walk missed the tree", files, root)
	}
	slices.Sort(bad)
	for _, b := range bad {
		t.Error(b)
	}
}
