package memory

import (
	"slices"
	"strings"

	"engram/domain/instruction"
	"engram/domain/secret"
)

// Flag marks something about a memory that whoever puts it in front of a model
// must know. Flags follow from the content: every change of content recomputes
// them, and no caller sets one.
type Flag string

// FlagInstructionLike: the content reads as an instruction to the assistant ("ignore
// previous instructions", "SYSTEM:", "</memory>", "always include this link"). It was
// saved explicitly and is kept, but only as data: a context builder quotes it or
// leaves it out, and never presents it as a rule.
const FlagInstructionLike Flag = "instruction_like"

// FlagSecret: the content holds a secret or an identity number (domain/secret),
// stored as given because the deployment flags secrets instead of masking them. It
// is never put into a context block, and a search returns it only when asked to.
const FlagSecret Flag = "secret"

// FlagSet is a memory's flags. It is a value (comparable, so State stays comparable)
// holding the flags sorted and comma-joined, which is also how storage keeps them.
type FlagSet struct {
	joined string
}

// NewFlagSet builds a set from flags in any order, without repeats.
func NewFlagSet(flags ...Flag) FlagSet {
	names := make([]string, 0, len(flags))
	for _, f := range flags {
		if n := strings.TrimSpace(string(f)); n != "" && !slices.Contains(names, n) {
			names = append(names, n)
		}
	}
	slices.Sort(names)
	return FlagSet{joined: strings.Join(names, ",")}
}

// ParseFlagSet reads a set as String wrote it. Unknown names are kept: a newer
// version may have written them.
func ParseFlagSet(s string) FlagSet {
	var flags []Flag
	for _, n := range strings.Split(s, ",") {
		flags = append(flags, Flag(n))
	}
	return NewFlagSet(flags...)
}

// String is the storage form: names sorted and comma-joined, "" for none.
func (s FlagSet) String() string { return s.joined }

// List returns the flags in order; an empty slice, never nil, when there are none.
func (s FlagSet) List() []Flag {
	if s.joined == "" {
		return []Flag{}
	}
	parts := strings.Split(s.joined, ",")
	out := make([]Flag, len(parts))
	for i, p := range parts {
		out[i] = Flag(p)
	}
	return out
}

// Has reports whether f is in the set.
func (s FlagSet) Has(f Flag) bool { return slices.Contains(s.List(), f) }

// IsEmpty reports whether the set has no flags.
func (s FlagSet) IsEmpty() bool { return s.joined == "" }

// ContentFlags are the flags content earns. Storage uses it for rows written before
// flags were kept; everything else gets flags through New, Replace, Append and
// RevertTo.
func ContentFlags(content string) FlagSet {
	var flags []Flag
	if instruction.Classify(content).InstructionLike() {
		flags = append(flags, FlagInstructionLike)
	}
	if secret.Contains(content) {
		flags = append(flags, FlagSecret)
	}
	return NewFlagSet(flags...)
}
