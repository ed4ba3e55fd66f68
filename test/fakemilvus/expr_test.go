package fakemilvus

import (
	"strconv"
	"testing"

	"github.com/milvus-io/milvus-proto/go-api/v2/schemapb"
)

var exprFields = map[string]*schemapb.FieldSchema{
	"s": {Name: "s", DataType: schemapb.DataType_VarChar},
	"t": {Name: "t", DataType: schemapb.DataType_VarChar},
	"n": {Name: "n", DataType: schemapb.DataType_Int64},
	"v": {Name: "v", DataType: schemapb.DataType_FloatVector},
}

func TestExpr_evaluates(t *testing.T) {
	t.Parallel()
	r := row{"s": "alice", "t": "acme", "n": int64(42)}
	for expr, want := range map[string]bool{
		`s == "alice"`:                             true,
		`s == 'alice'`:                             true,
		`s != "alice"`:                             false,
		`n >= 42 && n < 43`:                        true,
		`n > 42`:                                   false,
		`n >= -5`:                                  true,
		`s in ["bob", "alice"]`:                    true,
		`s in ["bob",]`:                            false,
		`s not in ["bob"]`:                         true,
		`s == "bob" || t == "acme" && n == 42`:     true,
		`(s == "bob" || t == "acme") && n == 41`:   false,
		`!(s == "bob")`:                            true,
		`not s == "bob" and t == "acme"`:           true,
		`s == "bob" OR s == "alice"`:               true,
		`s < "b" && t >= "acme"`:                   true,
		`t == "acme" && s in ["alice"] && n <= 42`: true,
	} {
		n, err := parseExpr(expr, exprFields)
		if err != nil {
			t.Errorf("%s: %v", expr, err)
			continue
		}
		if got := n.eval(r); got != want {
			t.Errorf("%s = %v, want %v", expr, got, want)
		}
	}
}

// Whatever a value holds, strconv.Quote makes a literal that reads back as exactly
// that value: the property the adapter's escaping relies on.
func TestExpr_quotedValuesRoundTrip(t *testing.T) {
	t.Parallel()
	for _, v := range []string{`a" || s != "`, `back\slash\`, "line\nbreak\r\t", "nul\x00byte", "记忆 👋", `'single'`, "\u2028", "bad\xffutf8"} {
		n, err := parseExpr("s == "+strconv.Quote(v), exprFields)
		if err != nil {
			t.Errorf("%q: %v", v, err)
			continue
		}
		if !n.eval(row{"s": v}) || n.eval(row{"s": v + "x"}) {
			t.Errorf("%q did not match itself exactly", v)
		}
	}
}

func TestExpr_refusesWhatMilvusRefuses(t *testing.T) {
	t.Parallel()
	for _, expr := range []string{
		"s == \"raw\nline\"", // Milvus's lexer has no raw line breaks in strings
		`s == "bad \q escape"`,
		`missing == "x"`,
		`n == "42"`,
		`s == 42`,
		`v == 1`,
		`s == "x" &&`,
		`s in "x"`,
		`(s == "x"`,
		`s == "unterminated`,
		`s ~ "x"`,
	} {
		if _, err := parseExpr(expr, exprFields); err == nil {
			t.Errorf("%s: accepted", expr)
		}
	}
}
