package fakemilvus

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/milvus-io/milvus-proto/go-api/v2/schemapb"
)

// The fake evaluates this subset of Milvus boolean expressions:
//
//	expr    := or
//	or      := and (("||" | "or" | "OR") and)*
//	and     := unary (("&&" | "and" | "AND") unary)*
//	unary   := ("!" | "not" | "NOT") unary | "(" expr ")" | compare | member
//	compare := field ("==" | "!=" | "<" | "<=" | ">" | ">=") literal
//	member  := field ["not" | "NOT"] ("in" | "IN") "[" literal ("," literal)* "]"
//	literal := string | ["-"] integer
//
// Strings are lexed as Milvus lexes them (double or single quotes, no raw line breaks,
// C escapes) and decoded with strconv.Unquote, as Milvus does. Fields must exist in
// the schema and literals must match their type (VarChar or Int64), or the
// expression is refused like Milvus refuses it.

type exprNode interface {
	eval(r row) bool
}

type orNode struct{ left, right exprNode }

func (n orNode) eval(r row) bool { return n.left.eval(r) || n.right.eval(r) }

type andNode struct{ left, right exprNode }

func (n andNode) eval(r row) bool { return n.left.eval(r) && n.right.eval(r) }

type notNode struct{ x exprNode }

func (n notNode) eval(r row) bool { return !n.x.eval(r) }

type compareNode struct {
	field string
	op    string
	value any // string or int64
}

func (n compareNode) eval(r row) bool {
	switch v := r[n.field].(type) {
	case string:
		return compareOrdered(v, n.value.(string), n.op)
	case int64:
		return compareOrdered(v, n.value.(int64), n.op)
	}
	return false
}

func compareOrdered[T string | int64](a, b T, op string) bool {
	switch op {
	case "==":
		return a == b
	case "!=":
		return a != b
	case "<":
		return a < b
	case "<=":
		return a <= b
	case ">":
		return a > b
	case ">=":
		return a >= b
	}
	return false
}

type memberNode struct {
	field  string
	values []any
	negate bool
}

func (n memberNode) eval(r row) bool {
	v := r[n.field]
	for _, x := range n.values {
		if x == v {
			return !n.negate
		}
	}
	return n.negate
}

type token struct {
	kind string // "ident", "string", "int", "op", "eof"
	text string
	pos  int
}

func lex(expr string) ([]token, error) {
	var out []token
	i := 0
	for i < len(expr) {
		c := expr[i]
		switch {
		case c == ' ' || c == '\t' || c == '\n' || c == '\r':
			i++
		case c == '"' || c == '\'':
			end, err := scanString(expr, i)
			if err != nil {
				return nil, err
			}
			out = append(out, token{"string", expr[i:end], i})
			i = end
		case c >= '0' && c <= '9':
			j := i
			for j < len(expr) && expr[j] >= '0' && expr[j] <= '9' {
				j++
			}
			out = append(out, token{"int", expr[i:j], i})
			i = j
		case c == '_' || c == '$' || (c|0x20 >= 'a' && c|0x20 <= 'z'):
			j := i
			for j < len(expr) && (expr[j] == '_' || expr[j] == '$' || (expr[j]|0x20 >= 'a' && expr[j]|0x20 <= 'z') || (expr[j] >= '0' && expr[j] <= '9')) {
				j++
			}
			out = append(out, token{"ident", expr[i:j], i})
			i = j
		default:
			two := ""
			if i+1 < len(expr) {
				two = expr[i : i+2]
			}
			switch two {
			case "==", "!=", "<=", ">=", "&&", "||":
				out = append(out, token{"op", two, i})
				i += 2
				continue
			}
			switch c {
			case '<', '>', '!', '(', ')', '[', ']', ',', '-':
				out = append(out, token{"op", string(c), i})
				i++
			default:
				return nil, fmt.Errorf("cannot parse expression: unexpected %q at %d", c, i)
			}
		}
	}
	return append(out, token{"eof", "", len(expr)}), nil
}

// scanString returns the end (exclusive) of the string literal starting at start,
// following the Milvus lexer: no raw line breaks, and a backslash must start one of
// the C escape sequences.
func scanString(expr string, start int) (int, error) {
	quote := expr[start]
	for i := start + 1; i < len(expr); i++ {
		switch c := expr[i]; c {
		case quote:
			return i + 1, nil
		case '\r', '\n':
			return 0, fmt.Errorf("cannot parse expression: line break inside string literal at %d", i)
		case '\\':
			if i+1 >= len(expr) {
				return 0, fmt.Errorf("cannot parse expression: unterminated escape at %d", i)
			}
			switch next := expr[i+1]; {
			case strings.IndexByte(`'"?abfnrtv\`, next) >= 0:
				i++
			case next == 'x' || next == 'u' || next == 'U' || (next >= '0' && next <= '7'):
				i++ // the digits are ordinary characters to the lexer
			default:
				return 0, fmt.Errorf("cannot parse expression: invalid escape \\%c at %d", next, i)
			}
		}
	}
	return 0, fmt.Errorf("cannot parse expression: unterminated string literal at %d", start)
}

// decodeString turns a string literal into its value the way Milvus does: single
// quoted literals are rewritten to double quoted ones, then strconv.Unquote.
func decodeString(lit string) (string, error) {
	if lit[0] == '\'' {
		var b strings.Builder
		b.WriteByte('"')
		body := lit[1 : len(lit)-1]
		for i := 0; i < len(body); i++ {
			switch c := body[i]; {
			case c == '\\' && i+1 < len(body) && body[i+1] == '\'':
				b.WriteByte('\'')
				i++
			case c == '\\' && i+1 < len(body):
				b.WriteByte(c)
				b.WriteByte(body[i+1])
				i++
			case c == '"':
				b.WriteString(`\"`)
			default:
				b.WriteByte(c)
			}
		}
		b.WriteByte('"')
		lit = b.String()
	}
	s, err := strconv.Unquote(lit)
	if err != nil {
		return "", fmt.Errorf("cannot parse expression: bad string literal %s: %v", lit, err)
	}
	return s, nil
}

type parser struct {
	toks   []token
	i      int
	fields map[string]*schemapb.FieldSchema
}

// parseExpr parses expr against the collection's fields.
func parseExpr(expr string, fields map[string]*schemapb.FieldSchema) (exprNode, error) {
	toks, err := lex(expr)
	if err != nil {
		return nil, err
	}
	p := &parser{toks: toks, fields: fields}
	n, err := p.or()
	if err != nil {
		return nil, err
	}
	if t := p.peek(); t.kind != "eof" {
		return nil, fmt.Errorf("cannot parse expression: unexpected %q at %d", t.text, t.pos)
	}
	return n, nil
}

func (p *parser) peek() token { return p.toks[p.i] }
func (p *parser) next() token { t := p.toks[p.i]; p.i++; return t }

func (p *parser) isWord(words ...string) bool {
	t := p.peek()
	for _, w := range words {
		if (t.kind == "op" || t.kind == "ident") && t.text == w {
			return true
		}
	}
	return false
}

func (p *parser) or() (exprNode, error) {
	left, err := p.and()
	if err != nil {
		return nil, err
	}
	for p.isWord("||", "or", "OR") {
		p.next()
		right, err := p.and()
		if err != nil {
			return nil, err
		}
		left = orNode{left, right}
	}
	return left, nil
}

func (p *parser) and() (exprNode, error) {
	left, err := p.unary()
	if err != nil {
		return nil, err
	}
	for p.isWord("&&", "and", "AND") {
		p.next()
		right, err := p.unary()
		if err != nil {
			return nil, err
		}
		left = andNode{left, right}
	}
	return left, nil
}

func (p *parser) unary() (exprNode, error) {
	if p.isWord("!", "not", "NOT") {
		p.next()
		x, err := p.unary()
		if err != nil {
			return nil, err
		}
		return notNode{x}, nil
	}
	if p.isWord("(") {
		p.next()
		x, err := p.or()
		if err != nil {
			return nil, err
		}
		if !p.isWord(")") {
			return nil, fmt.Errorf("cannot parse expression: missing ) at %d", p.peek().pos)
		}
		p.next()
		return x, nil
	}
	t := p.next()
	if t.kind != "ident" {
		return nil, fmt.Errorf("cannot parse expression: expected a field name at %d, got %q", t.pos, t.text)
	}
	field, ok := p.fields[t.text]
	if !ok {
		return nil, fmt.Errorf("field %s not exist", t.text)
	}
	if field.GetDataType() != schemapb.DataType_VarChar && field.GetDataType() != schemapb.DataType_Int64 {
		return nil, fmt.Errorf("fakemilvus: filtering on %s fields is not supported", field.GetDataType())
	}

	negate := false
	if p.isWord("not", "NOT") {
		p.next()
		negate = true
		if !p.isWord("in", "IN") {
			return nil, fmt.Errorf("cannot parse expression: expected in after not at %d", p.peek().pos)
		}
	}
	if p.isWord("in", "IN") {
		p.next()
		if !p.isWord("[") {
			return nil, fmt.Errorf("cannot parse expression: expected [ at %d", p.peek().pos)
		}
		p.next()
		var values []any
		for {
			v, err := p.literal(field)
			if err != nil {
				return nil, err
			}
			values = append(values, v)
			if p.isWord(",") {
				p.next()
				if p.isWord("]") { // a trailing comma is allowed
					break
				}
				continue
			}
			break
		}
		if !p.isWord("]") {
			return nil, fmt.Errorf("cannot parse expression: expected ] at %d", p.peek().pos)
		}
		p.next()
		return memberNode{field: field.GetName(), values: values, negate: negate}, nil
	}

	op := p.next()
	switch op.text {
	case "==", "!=", "<", "<=", ">", ">=":
	default:
		return nil, fmt.Errorf("cannot parse expression: expected a comparison after %s at %d, got %q", t.text, op.pos, op.text)
	}
	v, err := p.literal(field)
	if err != nil {
		return nil, err
	}
	return compareNode{field: field.GetName(), op: op.text, value: v}, nil
}

func (p *parser) literal(field *schemapb.FieldSchema) (any, error) {
	t := p.next()
	negative := false
	if t.kind == "op" && t.text == "-" {
		negative = true
		t = p.next()
	}
	switch {
	case t.kind == "string" && !negative:
		if field.GetDataType() != schemapb.DataType_VarChar {
			return nil, fmt.Errorf("cannot compare %s field %s with a string", field.GetDataType(), field.GetName())
		}
		return decodeString(t.text)
	case t.kind == "int":
		if field.GetDataType() != schemapb.DataType_Int64 {
			return nil, fmt.Errorf("cannot compare %s field %s with an integer", field.GetDataType(), field.GetName())
		}
		n, err := strconv.ParseInt(t.text, 10, 64)
		if err != nil {
			return nil, fmt.Errorf("cannot parse expression: %v", err)
		}
		if negative {
			n = -n
		}
		return n, nil
	}
	return nil, fmt.Errorf("cannot parse expression: expected a literal at %d, got %q", t.pos, t.text)
}
