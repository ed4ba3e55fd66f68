package httpapi_test

import (
	"go/ast"
	"go/parser"
	"go/token"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// statusBuilders are huma's functions that turn a status into an error: calling
// one decides a status.
var statusBuilders = regexp.MustCompile(`^(Error\d{3}\w*|NewError\w*)$`)

// Every status an error becomes is decided in errors.go (problem, and the edge's
// failures): no other file of the package builds a status error with huma, and a
// problem written outside a handler (huma.WriteErr, writeProblem) takes its status
// from an edge failure's status(), so a reader finds each error's status in one
// place.
func TestStatuses_areDecidedInErrorsGoOnly(t *testing.T) {
	t.Parallel()
	files, err := filepath.Glob("*.go")
	if err != nil {
		t.Fatal(err)
	}
	fset := token.NewFileSet()
	checked := 0
	for _, name := range files {
		if strings.HasSuffix(name, "_test.go") || name == "errors.go" {
			continue
		}
		f, err := parser.ParseFile(fset, name, nil, 0)
		if err != nil {
			t.Fatal(err)
		}
		checked++
		ast.Inspect(f, func(n ast.Node) bool {
			switch n := n.(type) {
			case *ast.SelectorExpr:
				if pkg, ok := n.X.(*ast.Ident); ok && pkg.Name == "huma" && statusBuilders.MatchString(n.Sel.Name) {
					t.Errorf("%s: huma.%s decides a status outside errors.go: return the error through problem (add a case there)",
						fset.Position(n.Pos()), n.Sel.Name)
				}
			case *ast.CallExpr:
				if name := calledName(n); (name == "huma.WriteErr" || name == "writeProblem") && len(n.Args) > 2 && !isStatusCall(n.Args[2]) {
					t.Errorf("%s: %s is given a status decided here: give it an edge failure's status() (errors.go)",
						fset.Position(n.Pos()), name)
				}
			}
			return true
		})
	}
	if checked < 10 {
		t.Fatalf("checked %d files; the test runs in the wrong directory", checked)
	}
}

func calledName(call *ast.CallExpr) string {
	switch fn := call.Fun.(type) {
	case *ast.Ident:
		return fn.Name
	case *ast.SelectorExpr:
		if pkg, ok := fn.X.(*ast.Ident); ok {
			return pkg.Name + "." + fn.Sel.Name
		}
	}
	return ""
}

// isStatusCall reports whether e is x.status().
func isStatusCall(e ast.Expr) bool {
	call, ok := e.(*ast.CallExpr)
	if !ok {
		return false
	}
	sel, ok := call.Fun.(*ast.SelectorExpr)
	return ok && sel.Sel.Name == "status"
}
