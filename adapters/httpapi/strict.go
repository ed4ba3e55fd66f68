package httpapi

import (
	"bytes"
	"math"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"sync"

	"github.com/danielgtaylor/huma/v2"
	"github.com/go-json-experiment/json/jsontext"
)

// Strict input: what a lenient decoder would take silently and act on wrongly.
// encoding/json lets the last of two equal names win and matches names in any
// case, and a query parameter nobody declared is simply not read, so a typo
// (conversaton_id, casade) quietly widens or weakens the request. Each is refused
// here, naming what to fix.

// unknownQuery names every query parameter sent that the operation does not
// declare, with the declared one it most likely meant.
func unknownQuery(op *huma.Operation, query url.Values) []error {
	if len(query) == 0 {
		return nil
	}
	var declared []string
	for _, p := range op.Parameters {
		if p.In == "query" {
			declared = append(declared, p.Name)
		}
	}
	var bad []error
	for name := range query {
		if slices.Contains(declared, name) {
			continue
		}
		bad = append(bad, &huma.ErrorDetail{Location: "query." + name, Value: name,
			Message: "is not a parameter of this operation" + suggestion(name, declared, "parameters")})
	}
	slices.SortFunc(bad, func(a, b error) int {
		return strings.Compare(a.(*huma.ErrorDetail).Location, b.(*huma.ErrorDetail).Location)
	})
	return bad
}

// suggestion says which known name was meant, or lists them all.
func suggestion(name string, known []string, what string) string {
	if len(known) == 0 {
		return "; it takes no " + what
	}
	best, bestDist := "", 3 // at most two edits away counts as a typo
	for _, k := range known {
		if strings.EqualFold(k, name) {
			return "; names are case-sensitive: did you mean " + k + "?"
		}
		if d := editDistance(name, k); d < bestDist {
			best, bestDist = k, d
		}
	}
	if best != "" {
		return "; did you mean " + best + "?"
	}
	sorted := slices.Sorted(slices.Values(known))
	return "; its " + what + " are " + strings.Join(sorted, ", ")
}

// editDistance is the Levenshtein distance of two short names.
func editDistance(a, b string) int {
	ra, rb := []rune(a), []rune(b)
	prev := make([]int, len(rb)+1)
	cur := make([]int, len(rb)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(ra); i++ {
		cur[0] = i
		for j := 1; j <= len(rb); j++ {
			cost := 1
			if ra[i-1] == rb[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
		}
		prev, cur = cur, prev
	}
	return prev[len(rb)]
}

// strictProblem is what is wrong with the names or numbers of a JSON document:
// a name repeated within one object, a name that differs from the schema's only in
// case, a number no float64 holds. bad is the edge failure it is.
type strictProblem struct {
	detail *huma.ErrorDetail
	bad    edgeFailure
}

// jsonFrame is one open object or array of the document being walked.
type jsonFrame struct {
	kind     jsontext.Kind
	schema   *huma.Schema // nil: not known, names are not checked against it
	seen     map[string]bool
	nameNext bool         // in an object: the next token is a member name
	child    *huma.Schema // in an object: the schema of the member just named
}

// strictJSON walks a JSON document against schema (nil: the document's names
// are checked for repeats only) and returns its first strict problem, or nil. A
// document that is not JSON passes: the decoder that follows answers it.
func strictJSON(body []byte, registry huma.Registry, schema *huma.Schema) *strictProblem {
	w := &jsonWalk{registry: registry, root: resolve(registry, schema),
		dec: jsontext.NewDecoder(bytes.NewReader(body), jsontext.AllowDuplicateNames(true), jsontext.AllowInvalidUTF8(true))}
	for {
		tok, err := w.dec.ReadToken()
		if err != nil { // the end, or not JSON: the decoder that follows answers that
			return nil
		}
		if p := w.step(tok); p != nil {
			return p
		}
	}
}

// jsonWalk is strictJSON's position in the document.
type jsonWalk struct {
	dec      *jsontext.Decoder
	registry huma.Registry
	root     *huma.Schema
	stack    []*jsonFrame
}

// step takes one token: a member name, the start or end of a container, or a
// scalar value.
func (w *jsonWalk) step(tok jsontext.Token) *strictProblem {
	var top *jsonFrame
	if len(w.stack) > 0 {
		top = w.stack[len(w.stack)-1]
	}
	kind := tok.Kind()
	if top != nil && top.kind == '{' && top.nameNext && kind == '"' {
		return top.name(w.registry, tok.String(), w.dec)
	}
	switch kind {
	case '{', '[':
		schema := w.root
		if top != nil {
			schema = top.valueSchema(w.registry)
		}
		w.stack = append(w.stack, &jsonFrame{kind: kind, schema: schema, seen: map[string]bool{}, nameNext: kind == '{'})
		return nil
	case '}', ']':
		w.stack = w.stack[:len(w.stack)-1]
		top = nil
		if len(w.stack) > 0 {
			top = w.stack[len(w.stack)-1] // the container just closed was its value
		}
	case '0':
		if p := w.number(tok.String()); p != nil {
			return p
		}
	}
	if top != nil && top.kind == '{' {
		top.nameNext = true
	}
	return nil
}

// number refuses a number no float64 holds: a decoder would fail on it naming
// no field, or turn it into infinity.
func (w *jsonWalk) number(text string) *strictProblem {
	if f, err := strconv.ParseFloat(text, 64); err == nil && !math.IsInf(f, 0) {
		return nil
	}
	return &strictProblem{bad: badNumber, detail: &huma.ErrorDetail{
		Location: location(w.dec, w.dec.StackPointer()), Value: text,
		Message: "is out of range: send a number between -1.7976931348623157e308 and 1.7976931348623157e308 (see this field's schema for its own bounds)"}}
}

// name checks one member name of an object and keeps the schema of its value.
func (f *jsonFrame) name(registry huma.Registry, name string, dec *jsontext.Decoder) *strictProblem {
	f.nameNext = false
	at := func() string { return location(dec, dec.StackPointer()) }
	if f.seen[name] {
		return &strictProblem{bad: badName, detail: &huma.ErrorDetail{Location: at(), Value: name,
			Message: "appears more than once in one object: send each field once"}}
	}
	f.seen[name] = true
	f.child = nil
	if f.schema == nil {
		return nil
	}
	if s, ok := f.schema.Properties[name]; ok {
		f.child = resolve(registry, s)
		return nil
	}
	for known := range f.schema.Properties {
		if strings.EqualFold(known, name) {
			return &strictProblem{bad: badName, detail: &huma.ErrorDetail{Location: at(), Value: name,
				Message: "is not a field: field names are case-sensitive, send " + known}}
		}
	}
	if s, ok := f.schema.AdditionalProperties.(*huma.Schema); ok {
		f.child = resolve(registry, s)
	}
	return nil
}

// valueSchema is the schema of the next value in the frame.
func (f *jsonFrame) valueSchema(registry huma.Registry) *huma.Schema {
	if f.kind == '[' {
		if f.schema == nil {
			return nil
		}
		return resolve(registry, f.schema.Items)
	}
	return f.child
}

// resolve follows a schema's references; nil when there is none or it names none.
func resolve(registry huma.Registry, s *huma.Schema) *huma.Schema {
	for i := 0; s != nil && s.Ref != "" && i < 8; i++ {
		if registry == nil {
			return nil
		}
		s = registry.SchemaFromRef(s.Ref)
	}
	if s != nil && s.Ref != "" {
		return nil
	}
	return s
}

// requestSchema is the schema of the operation's JSON body, nil when it has none.
func requestSchema(op *huma.Operation) *huma.Schema {
	if op.RequestBody == nil {
		return nil
	}
	for ct, mt := range op.RequestBody.Content {
		if isJSON(ct) && mt != nil {
			return mt.Schema
		}
	}
	return nil
}

// installStrictCasing makes huma's validator match names exactly too, so a
// schema the walk above cannot follow (oneOf, say) is no back door for "TYPE".
var installStrictCasing = sync.OnceFunc(func() { huma.ValidateStrictCasing = true })
