package profile

import (
	"time"
)

// Windows and bounds of the derivations.
const (
	WorkHoursWindow   = 90 * 24 * time.Hour // messages this recent shape the work hours
	TopicsWindow      = 30 * 24 * time.Hour // 最近话题: messages this recent
	MaxTopics         = 8
	MaxExpertise      = 5
	MaxFavourites     = 5
	MinWorkHourSample = 5   // fewer messages say nothing about habits
	WorkHourCoverage  = 0.8 // the hours that hold this share of the messages
)

// MessageFact is one user message as the derivations see it.
type MessageFact struct {
	At   time.Time
	Text string
}

// MemoryFact is one live long-term memory of the user.
type MemoryFact struct {
	Key        string
	Type       string // preference, fact, goal, project, constraint
	Content    string
	Importance int
	UpdatedAt  time.Time
}

// Inputs are what a profile is derived from. Messages are the user's own messages
// (not the assistant's), any order; Conversations and LastConversationAt count all
// of them, Messages may be only the recent ones. Sessions are the user's live
// short-term sessions, any order.
type Inputs struct {
	Now                time.Time
	TimeZone           string // the declared IANA zone; "" is UTC
	Messages           []MessageFact
	Conversations      int
	LastConversationAt time.Time
	Memories           []MemoryFact
	Activity           []ActivityTally
	Sessions           []SessionFact
}

// Terms is a text analyser: the index terms of a text in order (English stems,
// CJK characters and bigrams), stop words removed — ports.TextAnalyzer.Terms.
type Terms func(text string) []string

// Derive computes every derived field. It is pure: the same inputs and clock give
// the same profile.
func Derive(in Inputs, terms Terms) Derived {
	loc := location(in.TimeZone)
	tasks := TaskStatistics(in.Activity)
	favourites, used := FavouriteWorkflows(in.Activity, in.Sessions)
	hours := WorkHours(in.Messages, in.Now, loc)
	conversations, last := Conversations(in.Conversations, in.LastConversationAt, in.Sessions)
	return Derived{
		Conversations:      conversations,
		WorkflowsUsed:      used,
		FavouriteWorkflows: favourites,
		WorkHours:          hours,
		WorkStyle:          WorkStyle(tasks, used, in.Messages, in.Now, loc),
		Topics:             Topics(in.Messages, in.Memories, in.Now, terms),
		Expertise:          Expertise(in.Memories, in.Activity),
		Tasks:              tasks,
		LastConversationAt: last.UTC(),
	}
}

// location resolves a declared zone; an unknown or empty one is UTC (declared zones
// are validated when they are set, so this only guards old rows).
func location(zone string) *time.Location {
	if zone == "" {
		return time.UTC
	}
	loc, err := time.LoadLocation(zone)
	if err != nil {
		return time.UTC
	}
	return loc
}
