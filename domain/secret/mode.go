package secret

import (
	"fmt"
	"regexp"
)

// Mode is what a deployment does with a secret it is handed.
type Mode string

const (
	// ModeMask stores the text with each secret replaced by its mask; the secret
	// itself is never stored.
	ModeMask Mode = "mask"
	// ModeFlag stores the text as given; a memory holding a secret is flagged, and
	// no text holding one is put into a context block or returned by a search
	// that does not ask for secrets.
	ModeFlag Mode = "flag"
	// ModeOff stores and serves text as given.
	ModeOff Mode = "off"
)

// DefaultMode is mask: a secret that is never stored cannot leak.
const DefaultMode = ModeMask

// ParseMode reads a mode's name.
func ParseMode(s string) (Mode, error) {
	switch m := Mode(s); m {
	case ModeMask, ModeFlag, ModeOff:
		return m, nil
	}
	return "", fmt.Errorf("secret: mode must be mask, flag or off, got %q", s)
}

// Stored is text as the mode stores it.
func (m Mode) Stored(text string) string {
	if m == ModeMask {
		return Mask(text)
	}
	return text
}

// Screens reports whether text holding a secret is kept from prompts and searches.
func (m Mode) Screens() bool { return m == ModeMask || m == ModeFlag }

// maskedForm matches what Mask writes: a bracketed kind, or a run of stars next to
// the digits a mask keeps ("4111 **** **** 1111", "***-**-6789").
var maskedForm = regexp.MustCompile(`\[(?:password|api_key|private_key|token)\]|\d[ -]?\*{3,}|\*(?:[ -]?\*){2,}[ -]?\d`)

// Holds reports whether text holds a secret, as given or masked: extraction learns
// nothing from either.
func Holds(text string) bool { return Contains(text) || maskedForm.MatchString(text) }
