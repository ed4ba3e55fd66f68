package profile

import (
	"maps"
	"slices"
	"time"
	_ "time/tzdata" // work hours need the user's zone on every machine

	"engram/domain/memory"
)

// DefaultLanguage is the preferred_language default.
const DefaultLanguage = "zh"

// Field names a declared field by the name clients use.
type Field string

const (
	FieldDisplayName    Field = "display_name"
	FieldDepartment     Field = "department"
	FieldPosition       Field = "position"
	FieldRoleTags       Field = "role_tags"
	FieldWorkStyleTags  Field = "work_style_tags"
	FieldPreferredModel Field = "preferred_model"
	FieldLanguage       Field = "language"
	FieldTone           Field = "tone"
	FieldTimeZone       Field = "time_zone"
	FieldNickname       Field = "nickname"
	FieldPreferredName  Field = "preferred_name"
	FieldAIName         Field = "ai_name"
	FieldEmoji          Field = "emoji"
)

// Channel is where a declared value came from.
type Channel string

const (
	ChannelAPI        Channel = "api"        // PATCH …/profile
	ChannelOrg        Channel = "org"        // PUT /v1/org/users/{user}
	ChannelExtraction Channel = "extraction" // an identity slot said in a conversation
)

// Source says where a declared value came from and when it was set.
type Source struct {
	Channel        Channel
	ConversationID string
	MessageID      string
	At             time.Time
}

// Declared is what the user (or the organisation) said about them.
type Declared struct {
	DisplayName    string
	Department     string
	Position       string
	RoleTags       []string
	WorkStyleTags  []string
	PreferredModel string
	Language       string // BCP 47 tag; "" means DefaultLanguage
	Tone           string
	TimeZone       string // IANA zone; "" means UTC
	Nickname       string // what the user wants to be called
	PreferredName  string
	AIName         string // what the user calls the assistant
	Emoji          string
}

// WorkflowCount is one entry of favourite_workflows.
type WorkflowCount struct {
	FlowID   string
	FlowName string
	Count    int
}

// TopicCount is one entry of common_topics: a topic and in how many messages and
// memories it came up.
type TopicCount struct {
	Topic string
	Count int
}

// HourRange is a span of preferred work hours in the user's zone, From inclusive,
// To exclusive (0–24; To < From wraps past midnight).
type HourRange struct {
	From, To int
}

// TaskStats are the user's task and workflow statistics.
type TaskStats struct {
	Assigned           int
	Created            int
	Completed          int
	AvgCompletionHours float64
	CompletionRate     float64 // completed / assigned, at most 1
}

// Derived is what engram computed from the user's conversations, memories and
// activity; Derive computes it, nothing else writes it.
type Derived struct {
	Conversations      int
	WorkflowsUsed      int
	FavouriteWorkflows []WorkflowCount
	WorkHours          []HourRange
	WorkStyle          []StyleTag
	Topics             []TopicCount
	Expertise          []string
	Tasks              TaskStats
	LastConversationAt time.Time
}

// State is every field of a profile as plain data; adapters convert rows to and
// from it. Code outside storage changes profiles through the methods of Profile.
type State struct {
	Scope     memory.Scope
	Declared  Declared
	Derived   Derived
	Sources   map[Field]Source
	Version   int64 // profile_version; increases with every change
	CreatedAt time.Time
	UpdatedAt time.Time // last_updated_at
	DerivedAt time.Time // when a derivation last changed Derived; zero: never
}

// MapTimes returns the state with f applied to every non-zero time in it, so a
// store can keep times as it stores them (UTC, to the microsecond).
func (s State) MapTimes(f func(time.Time) time.Time) State {
	s = cloneState(s)
	m := func(t time.Time) time.Time {
		if t.IsZero() {
			return t
		}
		return f(t)
	}
	s.CreatedAt, s.UpdatedAt, s.DerivedAt = m(s.CreatedAt), m(s.UpdatedAt), m(s.DerivedAt)
	s.Derived.LastConversationAt = m(s.Derived.LastConversationAt)
	for field, src := range s.Sources {
		src.At = m(src.At)
		s.Sources[field] = src
	}
	return s
}

// Profile is one user's profile. The zero value is not a valid profile.
type Profile struct {
	s State
}

// New returns the empty profile of a user, version 0 (not stored yet).
func New(scope memory.Scope, now time.Time) Profile {
	return Profile{s: State{Scope: scope, Sources: map[Field]Source{}, CreatedAt: now, UpdatedAt: now}}
}

// Restore rebuilds a stored profile.
func Restore(s State) Profile {
	s = cloneState(s)
	if s.Sources == nil {
		s.Sources = map[Field]Source{}
	}
	return Profile{s: s}
}

// State returns a copy of every field.
func (p Profile) State() State { return cloneState(p.s) }

// Scope is whose profile this is.
func (p Profile) Scope() memory.Scope { return p.s.Scope }

// Version is the stored version; 0 for a profile never stored.
func (p Profile) Version() int64 { return p.s.Version }

// Language is the effective language: the declared one, or DefaultLanguage.
func (p Profile) Language() string { return EffectiveLanguage(p.s.Declared.Language) }

// EffectiveLanguage is lang, or DefaultLanguage when none was declared.
func EffectiveLanguage(lang string) string {
	if lang == "" {
		return DefaultLanguage
	}
	return lang
}

// IsEmpty reports whether nothing at all is known of the user: nothing declared and
// nothing derived. Such a profile is not worth storing.
func (p Profile) IsEmpty() bool {
	return p.s.Declared.equal(Declared{}) && p.s.Derived.equal(Derived{})
}

// WithDerived returns the profile with freshly derived fields, and whether anything
// changed; without a change it is the profile as it was.
func (p Profile) WithDerived(d Derived, now time.Time) (Profile, bool) {
	if p.s.Derived.equal(d) {
		return p, false
	}
	next := Restore(p.s)
	next.s.Derived = cloneDerived(d)
	next.s.DerivedAt = now
	next.touch(now)
	return next, true
}

// touch records a stored change.
func (p *Profile) touch(now time.Time) {
	p.s.Version++
	p.s.UpdatedAt = now
}

func (d Declared) equal(o Declared) bool {
	return d.DisplayName == o.DisplayName && d.Department == o.Department && d.Position == o.Position &&
		slices.Equal(d.RoleTags, o.RoleTags) && slices.Equal(d.WorkStyleTags, o.WorkStyleTags) &&
		d.PreferredModel == o.PreferredModel && d.Language == o.Language && d.Tone == o.Tone &&
		d.TimeZone == o.TimeZone && d.Nickname == o.Nickname && d.PreferredName == o.PreferredName &&
		d.AIName == o.AIName && d.Emoji == o.Emoji
}

func (d Derived) equal(o Derived) bool {
	return d.Conversations == o.Conversations && d.WorkflowsUsed == o.WorkflowsUsed &&
		slices.Equal(d.FavouriteWorkflows, o.FavouriteWorkflows) && slices.Equal(d.WorkHours, o.WorkHours) &&
		slices.Equal(d.WorkStyle, o.WorkStyle) && slices.Equal(d.Topics, o.Topics) &&
		slices.Equal(d.Expertise, o.Expertise) && d.Tasks == o.Tasks && d.LastConversationAt.Equal(o.LastConversationAt)
}

func cloneState(s State) State {
	s.Declared.RoleTags = slices.Clone(s.Declared.RoleTags)
	s.Declared.WorkStyleTags = slices.Clone(s.Declared.WorkStyleTags)
	s.Derived = cloneDerived(s.Derived)
	s.Sources = maps.Clone(s.Sources)
	return s
}

func cloneDerived(d Derived) Derived {
	d.FavouriteWorkflows = slices.Clone(d.FavouriteWorkflows)
	d.WorkHours = slices.Clone(d.WorkHours)
	d.WorkStyle = slices.Clone(d.WorkStyle)
	d.Topics = slices.Clone(d.Topics)
	d.Expertise = slices.Clone(d.Expertise)
	return d
}
