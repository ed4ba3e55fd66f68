package config

import (
	"cmp"
	"errors"
	"fmt"
	"maps"
	"slices"
)

// problems collects what is wrong with the settings, each error naming the
// environment variable to fix, in the order the sections are checked. Every
// section's validate reports into one, so Validate names all wrong settings at
// once instead of the first.
type problems struct{ errs []error }

func (p *problems) add(name, format string, args ...any) {
	p.errs = append(p.errs, fmt.Errorf("%s: "+format, append([]any{name}, args...)...))
}

// err is every problem joined, nil when there is none.
func (p *problems) err() error { return errors.Join(p.errs...) }

// between reports name unless lo <= v <= hi (NaN never is). format gets lo, hi
// and v in that order and may pick them by index ("%[3]v"); "" is the plain
// "must be between lo and hi, got v".
func between[T cmp.Ordered](p *problems, name string, v, lo, hi T, format string) {
	if v >= lo && v <= hi {
		return
	}
	if format == "" {
		format = "must be between %v and %v, got %v"
	}
	p.add(name, "%s", fmt.Sprintf(format, lo, hi, v))
}

// atLeastOne reports each setting of vals below 1, in the order of their names.
func (p *problems) atLeastOne(vals map[string]int) {
	for _, name := range slices.Sorted(maps.Keys(vals)) {
		if vals[name] < 1 {
			p.add(name, "must be at least 1, got %d", vals[name])
		}
	}
}

// oneOf reports name unless v is one of allowed; format gets v.
func (p *problems) oneOf(name, v string, allowed []string, format string) {
	if !slices.Contains(allowed, v) {
		p.add(name, format, v)
	}
}
