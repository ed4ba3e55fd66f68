package memory

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"time"

	"engram/domain/invalid"
)

// Bounds of a filter, so one request cannot make a statement of any size.
const (
	MaxFilterDepth      = 8   // nested AND/OR/NOT
	MaxFilterConditions = 100 // conditions in the whole tree
	MaxFilterValues     = 100 // values of one condition (in, nin)
)

// FilterOp is what a node of a filter does.
type FilterOp string

const (
	FilterAll   FilterOp = ""      // the zero Filter: every memory
	FilterMatch FilterOp = "match" // one condition
	FilterAnd   FilterOp = "and"   // every part
	FilterOr    FilterOp = "or"    // at least one part
	FilterNot   FilterOp = "not"   // not its one part
)

// Field is what a condition looks at.
type Field string

const (
	FieldUser      Field = "user_id"
	FieldAgent     Field = "agent_id"
	FieldApp       Field = "app_id"
	FieldRun       Field = "run_id"
	FieldID        Field = "id"         // the memory id
	FieldType      Field = "type"       // the memory type
	FieldCreatedAt Field = "created_at" // times compare as instants
	FieldUpdatedAt Field = "updated_at"
	FieldExpiresAt Field = "expires_at" // never matches a memory that does not expire, except ne
	FieldMetadata  Field = "metadata"   // a top-level key of the metadata (Condition.Key)
	FieldContent   Field = "content"    // the memory text
)

// Comparison is how a condition compares its field with its values.
type Comparison string

const (
	CmpEq       Comparison = "eq"       // equal to the one value
	CmpNe       Comparison = "ne"       // not equal; a memory without the field matches
	CmpIn       Comparison = "in"       // equal to one of the values
	CmpNotIn    Comparison = "nin"      // equal to none of them; a memory without the field matches
	CmpAny      Comparison = "any"      // the field is set (a metadata key is present)
	CmpGt       Comparison = "gt"       // times only
	CmpGte      Comparison = "gte"      //
	CmpLt       Comparison = "lt"       //
	CmpLte      Comparison = "lte"      //
	CmpContains Comparison = "contains" // text: a case-insensitive (ASCII) substring; type: is the value
)

// fieldKind says which values a field takes.
type fieldKind int

const (
	kindText fieldKind = iota // Condition.Values
	kindTime                  // Condition.Times
	kindJSON                  // Condition.Values hold JSON values (metadata)
)

// filterRule is what one field accepts: its kind and its comparisons.
type filterRule struct {
	kind fieldKind
	cmps []Comparison
}

var idCmps = []Comparison{CmpEq, CmpNe, CmpIn, CmpNotIn, CmpAny}

// filterRules are the conditions a filter may hold, by field.
var filterRules = map[Field]filterRule{
	FieldUser:      {kindText, idCmps},
	FieldAgent:     {kindText, idCmps},
	FieldApp:       {kindText, idCmps},
	FieldRun:       {kindText, idCmps},
	FieldID:        {kindText, []Comparison{CmpEq, CmpNe, CmpIn, CmpNotIn}},
	FieldType:      {kindText, []Comparison{CmpEq, CmpNe, CmpIn, CmpNotIn, CmpContains}},
	FieldCreatedAt: {kindTime, []Comparison{CmpEq, CmpNe, CmpIn, CmpGt, CmpGte, CmpLt, CmpLte}},
	FieldUpdatedAt: {kindTime, []Comparison{CmpEq, CmpNe, CmpIn, CmpGt, CmpGte, CmpLt, CmpLte}},
	FieldExpiresAt: {kindTime, []Comparison{CmpEq, CmpNe, CmpIn, CmpGt, CmpGte, CmpLt, CmpLte, CmpAny}},
	FieldMetadata:  {kindJSON, []Comparison{CmpEq, CmpNe, CmpIn, CmpNotIn, CmpAny, CmpContains}},
	FieldContent:   {kindText, []Comparison{CmpContains}},
}

// Condition is one comparison of a memory's field. Build it with Where,
// WhereTime or WhereMetadata, which validate it.
type Condition struct {
	Field Field
	Cmp   Comparison
	// Key is the metadata key compared (FieldMetadata only).
	Key string
	// Values: ids, types or text; for metadata, each value as compact JSON
	// ("\"travel\"", "3") except for contains, where it is the text looked for.
	Values []string
	Times  []time.Time // time fields
}

// Filter selects memories of one tenant: one condition, or AND, OR and NOT over
// filters. The zero Filter selects every memory. The stores translate it into
// their query language; Validate says whether they can.
type Filter struct {
	Op    FilterOp
	Parts []Filter  // And, Or: one or more; Not: exactly one
	Cond  Condition // Match
}

// Where is a condition on a text field (ids, type, content). Types are parsed
// (any letter case); values must be 1–128 printable characters (content up to
// 200).
func Where(field Field, cmp Comparison, values ...string) (Filter, error) {
	f := Filter{Op: FilterMatch, Cond: Condition{Field: field, Cmp: cmp, Values: slices.Clone(values)}}
	if field == FieldType {
		for i, v := range values {
			t, err := ParseType(v)
			if err != nil {
				return Filter{}, err
			}
			f.Cond.Values[i] = string(t)
		}
	}
	return f, f.Validate()
}

// WhereTime is a condition on a time field.
func WhereTime(field Field, cmp Comparison, times ...time.Time) (Filter, error) {
	f := Filter{Op: FilterMatch, Cond: Condition{Field: field, Cmp: cmp, Times: times}}
	return f, f.Validate()
}

// WhereMetadata is a condition on one top-level key of the metadata. For eq, ne,
// in and nin each value is raw JSON (a string must be quoted: `"travel"`); for
// contains the one value is raw text; any takes none.
func WhereMetadata(key string, cmp Comparison, values ...[]byte) (Filter, error) {
	f := Filter{Op: FilterMatch, Cond: Condition{Field: FieldMetadata, Cmp: cmp, Key: key}}
	for _, raw := range values {
		if cmp == CmpContains {
			f.Cond.Values = append(f.Cond.Values, string(raw))
			continue
		}
		v, err := compactJSONValue(raw)
		if err != nil {
			return Filter{}, invalid.Field("filters.metadata."+key, "must be a JSON value (quote a string: \"travel\"): %v", err)
		}
		f.Cond.Values = append(f.Cond.Values, v)
	}
	return f, f.Validate()
}

// And, Or and Not combine filters; Validate checks the result.
func And(parts ...Filter) Filter { return Filter{Op: FilterAnd, Parts: parts} }
func Or(parts ...Filter) Filter  { return Filter{Op: FilterOr, Parts: parts} }
func Not(part Filter) Filter     { return Filter{Op: FilterNot, Parts: []Filter{part}} }

// Validate checks the whole tree: known fields and comparisons, the right number
// and kind of values, and the bounds on depth and size.
func (f Filter) Validate() error {
	n := 0
	return f.validate(1, &n)
}

func (f Filter) validate(depth int, conditions *int) error {
	if depth > MaxFilterDepth {
		return invalid.Field("filters", "may nest AND, OR and NOT at most %d deep", MaxFilterDepth)
	}
	switch f.Op {
	case FilterAll:
		return nil
	case FilterMatch:
		if *conditions++; *conditions > MaxFilterConditions {
			return invalid.Field("filters", "may hold at most %d conditions", MaxFilterConditions)
		}
		return f.Cond.validate()
	case FilterAnd, FilterOr:
		if len(f.Parts) == 0 {
			return invalid.Field("filters", "%s needs at least one condition", strings.ToUpper(string(f.Op)))
		}
	case FilterNot:
		if len(f.Parts) != 1 {
			return invalid.Field("filters", "NOT takes exactly one condition, got %d", len(f.Parts))
		}
	default:
		return invalid.FieldValue("filters", string(f.Op), "is not AND, OR or NOT")
	}
	for _, p := range f.Parts {
		if err := p.validate(depth+1, conditions); err != nil {
			return err
		}
	}
	return nil
}

func (c Condition) validate() error {
	field := "filters." + string(c.Field)
	rule, ok := filterRules[c.Field]
	if !ok {
		return invalid.FieldValue("filters", string(c.Field), "is not a field a filter can name")
	}
	if !slices.Contains(rule.cmps, c.Cmp) {
		return invalid.FieldValue(field, string(c.Cmp), "takes one of %s", joinCmps(rule.cmps))
	}
	if c.Field == FieldMetadata {
		field = "filters.metadata." + c.Key
		if err := validateMetadataKey(c.Key); err != nil {
			return err
		}
	}
	n := len(c.Values)
	if rule.kind == kindTime {
		n = len(c.Times)
	}
	if err := checkValueCount(field, c.Cmp, n); err != nil {
		return err
	}
	if rule.kind == kindText {
		return validateTextValues(field, c.Field, c.Values)
	}
	return nil
}

// checkValueCount: any takes no value, in and nin one or more, the others one.
func checkValueCount(field string, cmp Comparison, n int) error {
	switch {
	case cmp == CmpAny && n != 0:
		return invalid.Field(field, "%s takes no value", cmp)
	case (cmp == CmpIn || cmp == CmpNotIn) && (n == 0 || n > MaxFilterValues):
		return invalid.Field(field, "%s takes 1 to %d values, got %d", cmp, MaxFilterValues, n)
	case cmp != CmpAny && cmp != CmpIn && cmp != CmpNotIn && n != 1:
		return invalid.Field(field, "%s takes exactly one value, got %d", cmp, n)
	}
	return nil
}

func validateTextValues(field string, f Field, values []string) error {
	limit := MaxUserIDLen
	if f == FieldContent {
		limit = 200
	}
	for _, v := range values {
		if v == "" || len([]rune(v)) > limit {
			return invalid.Field(field, "values must be 1 to %d characters", limit)
		}
		if err := ValidatePrintable(field, v); err != nil {
			return err
		}
	}
	return nil
}

// validateMetadataKey keeps keys a JSON path can name literally in every store.
func validateMetadataKey(key string) error {
	if key == "" || len(key) > 128 || strings.ContainsAny(key, `"\`) {
		return invalid.FieldValue("filters.metadata", key, `keys must be 1 to 128 characters without '"' or '\'`)
	}
	return ValidatePrintable("filters.metadata", key)
}

func joinCmps(cmps []Comparison) string {
	names := make([]string, len(cmps))
	for i, c := range cmps {
		names[i] = string(c)
	}
	return strings.Join(names, ", ")
}

// compactJSONValue is raw JSON as compact text with object keys sorted, the form
// metadata is stored in.
func compactJSONValue(raw []byte) (string, error) {
	var v any
	dec := json.NewDecoder(strings.NewReader(string(raw)))
	dec.UseNumber()
	if err := dec.Decode(&v); err != nil {
		return "", err
	}
	if dec.More() {
		return "", fmt.Errorf("more than one value")
	}
	out, err := json.Marshal(v)
	return string(out), err
}
