package memory

import (
	"strings"
	"unicode/utf8"

	"engram/domain/invalid"
)

// MaxUserIDLen bounds a tenant's own user id.
const MaxUserIDLen = 128

// Scope is whose memory this is: every read and write is confined to one tenant and
// one of that tenant's users.
type Scope struct {
	Tenant string
	User   string
}

// ParseScope validates the user id a client sent; the tenant comes from authentication
// and is trusted.
func ParseScope(tenant, user string) (Scope, error) {
	if err := ValidateUserID("user", user); err != nil {
		return Scope{}, err
	}
	return Scope{Tenant: tenant, User: user}, nil
}

// ValidateUserID checks a user id, or any other id a client chooses (1–128
// characters, not only spaces, no control characters, valid UTF-8).
func ValidateUserID(field, user string) error {
	n := utf8.RuneCountInString(user)
	if n == 0 || n > MaxUserIDLen {
		return invalid.Field(field, "must be 1 to %d characters, got %d", MaxUserIDLen, n)
	}
	if strings.TrimSpace(user) == "" {
		return invalid.FieldValue(field, user, "must not be only spaces")
	}
	for _, r := range user {
		if r < 0x20 || r == 0x7f || r == utf8.RuneError {
			return invalid.Field(field, "must not contain control characters or invalid UTF-8")
		}
	}
	return nil
}
