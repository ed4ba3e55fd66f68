package memory

import (
	"time"

	"engram/domain/invalid"
	"engram/domain/secret"
)

// Policy holds the lifecycle settings a deployment chooses.
type Policy struct {
	DefaultTTLDays int // 0: memories without ttl_days never expire
	// ConstraintTTLDays is the default lifetime of a constraint; 0 (the default):
	// a standing rule never expires unless its writer says so.
	ConstraintTTLDays int
	// Secrets is what a secret in new content becomes (ENGRAM_SECRETS); the zero
	// value stores content as given.
	Secrets secret.Mode
}

// lifetime is how many days a memory written from d lives (0: forever): what
// the draft asks for; without that, what the memory already has when it keeps
// its type (restating a memory never shortens or lengthens its life, it only
// restarts it); else the policy's default for the type.
func (p Policy) lifetime(d Draft, current *State) int {
	switch {
	case d.NeverExpires:
		return 0
	case d.TTLDays > 0:
		return d.TTLDays
	case current != nil && current.Type == d.Type:
		return current.TTLDays
	case d.Type == TypeConstraint:
		return max(p.ConstraintTTLDays, 0)
	}
	return max(p.DefaultTTLDays, 0)
}

// Lifetime is the lifetime writing d over current would give it.
func (p Policy) Lifetime(d Draft, current Memory) int { return p.lifetime(d, &current.s) }

// expiry is when a lifetime started at now ends; zero for none.
func expiry(ttlDays int, now time.Time) time.Time {
	if ttlDays <= 0 {
		return time.Time{}
	}
	return now.AddDate(0, 0, ttlDays)
}

// Renewed is the memory restated at now — saved, extracted or merged again
// saying what it says: its expiry restarts from now with its own lifetime. ok
// is false when nothing changes (it never expires, or was renewed at this very
// instant). A renewal is a change (version, event) but not of content: the
// vector index has nothing to catch up on.
func (m Memory) Renewed(src Source, now time.Time) (next Memory, ok bool) {
	at := expiry(m.s.TTLDays, now)
	if at.Equal(m.s.ExpiresAt) {
		return m, false
	}
	m.s.Version++
	m.s.UpdatedAt = now
	m.s.Source = src
	m.s.ExpiresAt = at
	return m, true
}

// LongerLife is the lifetime of a memory merged from two: forever when either
// lives forever, else the longer.
func LongerLife(a, b int) int {
	if a == 0 || b == 0 {
		return 0
	}
	return max(a, b)
}

// RestoreTTLDays is the lifetime of a row stored before lifetimes were kept:
// the days from its last change to its expiry, at least one; 0 when it never
// expires.
func RestoreTTLDays(expiresAt, updatedAt time.Time) int {
	if expiresAt.IsZero() {
		return 0
	}
	return max(1, int((expiresAt.Sub(updatedAt)+12*time.Hour)/(24*time.Hour)))
}

// Merged is what a survivor says once a merge folded copyOf into it: the
// higher importance and confidence of the two, the longer life, pinned when
// either was, and its expiry restarted from now (a merge restates the
// survivor). Apply it with RevertTo.
func Merged(survivor, copyOf State, now time.Time) State {
	survivor.Importance = max(survivor.Importance, copyOf.Importance)
	survivor.Confidence = max(survivor.Confidence, copyOf.Confidence)
	survivor.TTLDays = LongerLife(survivor.TTLDays, copyOf.TTLDays)
	survivor.Pinned = survivor.Pinned || copyOf.Pinned
	survivor.ExpiresAt = expiry(survivor.TTLDays, now)
	return survivor
}

// Settings change how a memory is kept, not what it says (memory_patch): each
// field that is not nil is set.
type Settings struct {
	Pinned     *bool
	Importance *int
	TTLDays    *int // 0: never expires; any other lifetime restarts from now
	// Metadata replaces the memory's metadata; an empty object clears it.
	Metadata *Metadata
}

// Validate checks the settings' ranges.
func (st Settings) Validate() error {
	var errs []error
	if st.Importance != nil && (*st.Importance < MinImportance || *st.Importance > MaxImportance) {
		errs = append(errs, invalid.FieldValue("importance", *st.Importance, "must be between %d and %d", MinImportance, MaxImportance))
	}
	if st.TTLDays != nil && (*st.TTLDays < 0 || *st.TTLDays > MaxTTLDays) {
		errs = append(errs, invalid.FieldValue("ttl_days", *st.TTLDays, "must be between 0 (never expires) and %d days", MaxTTLDays))
	}
	return invalid.Join(errs...)
}

// Set applies the settings at now; ok is false when they change nothing. A new
// lifetime restarts the expiry from now. Like a renewal it is a change (version,
// event) but not of content: the vector index has nothing to catch up on.
func (m Memory) Set(st Settings, src Source, now time.Time) (next Memory, ok bool) {
	next = m
	if st.Pinned != nil {
		next.s.Pinned = *st.Pinned
	}
	if st.Importance != nil {
		next.s.Importance = *st.Importance
	}
	if st.TTLDays != nil {
		next.s.TTLDays = *st.TTLDays
		next.s.ExpiresAt = expiry(*st.TTLDays, now)
	}
	if st.Metadata != nil {
		next.s.Attributes.Metadata = *st.Metadata
		if st.Metadata.JSON() == "{}" {
			next.s.Attributes.Metadata = Metadata{}
		}
	}
	if next.s == m.s {
		return m, false
	}
	next.s.Version++
	next.s.UpdatedAt = now
	next.s.Source = src
	return next, true
}
