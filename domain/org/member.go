package org

import (
	"strings"
	"time"
	"unicode/utf8"

	"engram/domain/invalid"
	"engram/domain/memory"
)

// MaxTextLen bounds display names, departments and positions (100 characters each).
const MaxTextLen = 100

// Member is one user's place in the organisation of a tenant.
type Member struct {
	UserID      string
	DisplayName string
	Department  string
	Position    string
	ManagerID   string // "" at the top of the graph
	CreatedAt   time.Time
	UpdatedAt   time.Time
}

// MemberInput is what a client puts for a user.
type MemberInput struct {
	DisplayName string
	Department  string
	Position    string
	ManagerID   string
}

// NewMember validates a member as a client sent it. The manager need not be in the
// graph yet (an organisation is often loaded reports first); a user managing
// themselves is refused here, longer cycles by CheckManager.
func NewMember(user string, in MemberInput, now time.Time) (Member, error) {
	m := Member{
		UserID:      user,
		DisplayName: strings.TrimSpace(in.DisplayName),
		Department:  strings.TrimSpace(in.Department),
		Position:    strings.TrimSpace(in.Position),
		ManagerID:   strings.TrimSpace(in.ManagerID),
		CreatedAt:   now,
		UpdatedAt:   now,
	}
	errs := []error{
		memory.ValidateUserID("user", user),
		ValidateText("display_name", m.DisplayName, true),
		ValidateText("department", m.Department, false),
		ValidateText("position", m.Position, false),
	}
	if m.ManagerID != "" {
		errs = append(errs, memory.ValidateUserID("manager_id", m.ManagerID))
		if m.ManagerID == user {
			errs = append(errs, invalid.FieldValue("manager_id", m.ManagerID, "must not be the user itself: nobody manages themselves"))
		}
	}
	if err := invalid.Join(errs...); err != nil {
		return Member{}, err
	}
	return m, nil
}

// SameAs reports whether two members say the same thing (times aside).
func (m Member) SameAs(o Member) bool {
	return m.UserID == o.UserID && m.DisplayName == o.DisplayName && m.Department == o.Department &&
		m.Position == o.Position && m.ManagerID == o.ManagerID
}

// ValidateText checks a short text field: at most MaxTextLen characters, no
// control characters, and not empty when required.
func ValidateText(field, s string, required bool) error {
	n := utf8.RuneCountInString(s)
	if required && n == 0 {
		return invalid.Field(field, "must not be empty")
	}
	if n > MaxTextLen {
		return invalid.Field(field, "must be at most %d characters, got %d", MaxTextLen, n)
	}
	return memory.ValidatePrintable(field, s)
}
