package profile

import (
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"

	"engram/domain/invalid"
	"engram/domain/memory"
)

// Limits of declared fields (the user_profiles column sizes).
const (
	MaxTextLen     = 100 // display name, department, position
	MaxShortLen    = 50  // model, tone, nickname, preferred name, AI name, a tag
	MaxLanguageLen = 20
	MaxEmojiLen    = 16
	MaxTags        = 20
	MaxTimeZoneLen = 64
)

// Opt is one field of a merge patch (RFC 7386): Set false leaves the field alone;
// Set with the zero value clears it (the client sent null or an empty value).
type Opt[T any] struct {
	Set   bool
	Value T
}

// Value is a set Opt.
func Value[T any](v T) Opt[T] { return Opt[T]{Set: true, Value: v} }

// Patch is a change to declared fields.
type Patch struct {
	DisplayName    Opt[string]
	Department     Opt[string]
	Position       Opt[string]
	RoleTags       Opt[[]string]
	WorkStyleTags  Opt[[]string]
	PreferredModel Opt[string]
	Language       Opt[string]
	Tone           Opt[string]
	TimeZone       Opt[string]
	Nickname       Opt[string]
	PreferredName  Opt[string]
	AIName         Opt[string]
	Emoji          Opt[string]
}

// textField is one string field of Declared, with its patch and its rules.
type textField struct {
	field Field
	patch Opt[string]
	dst   *string
	check func(field Field, v string) error
}

func (p Patch) textFields(d *Declared) []textField {
	return []textField{
		{FieldDisplayName, p.DisplayName, &d.DisplayName, textCheck(MaxTextLen)},
		{FieldDepartment, p.Department, &d.Department, textCheck(MaxTextLen)},
		{FieldPosition, p.Position, &d.Position, textCheck(MaxTextLen)},
		{FieldPreferredModel, p.PreferredModel, &d.PreferredModel, textCheck(MaxShortLen)},
		{FieldLanguage, p.Language, &d.Language, checkLanguage},
		{FieldTone, p.Tone, &d.Tone, textCheck(MaxShortLen)},
		{FieldTimeZone, p.TimeZone, &d.TimeZone, checkTimeZone},
		{FieldNickname, p.Nickname, &d.Nickname, textCheck(MaxShortLen)},
		{FieldPreferredName, p.PreferredName, &d.PreferredName, textCheck(MaxShortLen)},
		{FieldAIName, p.AIName, &d.AIName, textCheck(MaxShortLen)},
		{FieldEmoji, p.Emoji, &d.Emoji, textCheck(MaxEmojiLen)},
	}
}

type tagsField struct {
	field Field
	patch Opt[[]string]
	dst   *[]string
}

func (p Patch) tagsFields(d *Declared) []tagsField {
	return []tagsField{
		{FieldRoleTags, p.RoleTags, &d.RoleTags},
		{FieldWorkStyleTags, p.WorkStyleTags, &d.WorkStyleTags},
	}
}

// MapText returns the patch with f applied to every text and tag value it sets
// (the secret screen masks them before they are stored).
func (p Patch) MapText(f func(string) string) Patch {
	text := func(o Opt[string]) Opt[string] {
		if o.Set {
			o.Value = f(o.Value)
		}
		return o
	}
	tags := func(o Opt[[]string]) Opt[[]string] {
		if o.Set && o.Value != nil {
			mapped := make([]string, len(o.Value))
			for i, v := range o.Value {
				mapped[i] = f(v)
			}
			o.Value = mapped
		}
		return o
	}
	p.DisplayName, p.Department, p.Position = text(p.DisplayName), text(p.Department), text(p.Position)
	p.PreferredModel, p.Language, p.Tone, p.TimeZone = text(p.PreferredModel), text(p.Language), text(p.Tone), text(p.TimeZone)
	p.Nickname, p.PreferredName, p.AIName, p.Emoji = text(p.Nickname), text(p.PreferredName), text(p.AIName), text(p.Emoji)
	p.RoleTags, p.WorkStyleTags = tags(p.RoleTags), tags(p.WorkStyleTags)
	return p
}

// ErrEmptyPatch refuses a patch that names no field: it would change nothing, so
// the caller meant something else (a field to set, or null to clear one).
var ErrEmptyPatch = errors.New("the patch names no field")

// IsEmpty reports whether the patch names no field.
func (p Patch) IsEmpty() bool {
	var d Declared
	for _, f := range p.textFields(&d) {
		if f.patch.Set {
			return false
		}
	}
	for _, f := range p.tagsFields(&d) {
		if f.patch.Set {
			return false
		}
	}
	return true
}

// Apply validates the patch and returns the profile with it applied, and the
// fields whose value changed (each now sourced from src). Values are trimmed, tags
// trimmed and de-duplicated in order; a language tag is kept as written but checked,
// a time zone must be an IANA name. Every invalid field is reported at once and
// nothing is applied. With no change the profile is returned as it was.
func (p Profile) Apply(patch Patch, src Source) (Profile, []Field, error) {
	next := Restore(p.s)
	d := &next.s.Declared
	var errs []error
	var changed []Field
	for _, f := range patch.textFields(d) {
		if !f.patch.Set {
			continue
		}
		v := strings.TrimSpace(f.patch.Value)
		if err := f.check(f.field, v); err != nil {
			errs = append(errs, err)
			continue
		}
		if *f.dst != v {
			*f.dst = v
			changed = append(changed, f.field)
		}
	}
	for _, f := range patch.tagsFields(d) {
		if !f.patch.Set {
			continue
		}
		tags, err := cleanTags(f.field, f.patch.Value)
		if err != nil {
			errs = append(errs, err)
			continue
		}
		if !slices.Equal(*f.dst, tags) {
			*f.dst = tags
			changed = append(changed, f.field)
		}
	}
	if err := invalid.Join(errs...); err != nil {
		return p, nil, err
	}
	if len(changed) == 0 {
		return p, nil, nil
	}
	for _, f := range changed {
		next.s.Sources[f] = src
	}
	next.touch(src.At)
	return next, changed, nil
}

func textCheck(max int) func(Field, string) error {
	return func(field Field, v string) error {
		if n := utf8.RuneCountInString(v); n > max {
			return invalid.Field(string(field), "must be at most %d characters, got %d", max, n)
		}
		return checkPrintable(field, v)
	}
}

func checkPrintable(field Field, v string) error { return memory.ValidatePrintable(string(field), v) }

// checkLanguage accepts a BCP 47-shaped tag: letters, digits and hyphens, starting
// with a 2–3 letter language ("zh", "en-US", "zh-Hans-CN").
func checkLanguage(field Field, v string) error {
	if v == "" {
		return nil
	}
	if len(v) > MaxLanguageLen {
		return invalid.FieldValue(string(field), v, "must be at most %d characters", MaxLanguageLen)
	}
	parts := strings.Split(v, "-")
	if n := len(parts[0]); n < 2 || n > 3 || !isLetters(parts[0]) {
		return invalid.FieldValue(string(field), v, `must be a language tag such as "zh", "en" or "en-US"`)
	}
	for _, part := range parts[1:] {
		if part == "" || len(part) > 8 || strings.IndexFunc(part, func(r rune) bool { return !isASCIIAlnum(r) }) >= 0 {
			return invalid.FieldValue(string(field), v, `must be a language tag such as "zh", "en" or "en-US"`)
		}
	}
	return nil
}

func checkTimeZone(field Field, v string) error {
	if v == "" {
		return nil
	}
	if len(v) > MaxTimeZoneLen || strings.ContainsAny(v, " \\") || strings.HasPrefix(v, "/") {
		return invalid.FieldValue(string(field), v, `must be an IANA time zone such as "Asia/Shanghai" or "Europe/Paris"`)
	}
	if _, err := time.LoadLocation(v); err != nil || strings.EqualFold(v, "local") {
		return invalid.FieldValue(string(field), v, `must be an IANA time zone such as "Asia/Shanghai" or "Europe/Paris"`)
	}
	return nil
}

// cleanTags trims tags, drops empty ones and repeats (case-insensitively, the first
// spelling kept) and checks their number and length.
func cleanTags(field Field, tags []string) ([]string, error) {
	var out []string
	for i, t := range tags {
		t = strings.TrimSpace(t)
		if t == "" || slices.ContainsFunc(out, func(o string) bool { return strings.EqualFold(o, t) }) {
			continue
		}
		name := fmt.Sprintf("%s[%d]", field, i)
		if n := utf8.RuneCountInString(t); n > MaxShortLen {
			return nil, invalid.Field(name, "must be at most %d characters, got %d", MaxShortLen, n)
		}
		if err := checkPrintable(Field(name), t); err != nil {
			return nil, err
		}
		out = append(out, t)
	}
	if len(out) > MaxTags {
		return nil, invalid.Field(string(field), "must hold at most %d tags, got %d", MaxTags, len(out))
	}
	return out, nil
}

func isLetters(s string) bool {
	for _, r := range s {
		if r > unicode.MaxASCII || !unicode.IsLetter(r) {
			return false
		}
	}
	return true
}

func isASCIIAlnum(r rune) bool {
	return r <= unicode.MaxASCII && (unicode.IsLetter(r) || unicode.IsDigit(r))
}
