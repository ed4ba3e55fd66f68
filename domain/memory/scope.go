package memory

import (
	"crypto/sha256"
	"encoding/hex"
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

// Fingerprint is the hex SHA-256 of the tenant and the user id. What must outlive
// an erased user (the erasure's audit record) names the user by it, so the record
// says "this user was erased" to whoever already knows the id, without listing the
// ids of the people who asked to be forgotten. User ids are often guessable, so it
// is a pseudonym, not anonymity.
func (s Scope) Fingerprint() string {
	sum := sha256.Sum256([]byte(s.Tenant + "\x00" + s.User))
	return hex.EncodeToString(sum[:])
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
	return ValidatePrintable(field, user)
}

// ValidatePrintable checks that a text a client sent has no control characters
// and is valid UTF-8 (the rule of ids, names and other short fields).
func ValidatePrintable(field, s string) error {
	for _, r := range s {
		if r < 0x20 || r == 0x7f || r == utf8.RuneError {
			return invalid.Field(field, "must not contain control characters or invalid UTF-8")
		}
	}
	return nil
}
