package config

import (
	"strings"

	"engram/domain/secret"
)

// Secrets is the screen for secrets and identity numbers (domain/secret) that every
// text handed in passes before it is stored.
type Secrets struct {
	// Mode: mask (default) stores the secret masked, flag stores it as given but
	// keeps it out of context blocks and searches, off stores and serves it as
	// given.
	Mode string `yaml:"mode" env:"ENGRAM_SECRETS"`
}

// ScreenMode is the validated mode; Validate has refused any other value.
func (s Secrets) ScreenMode() secret.Mode {
	m, err := secret.ParseMode(strings.ToLower(strings.TrimSpace(s.Mode)))
	if err != nil {
		return secret.DefaultMode
	}
	return m
}

func (s Secrets) validate(p *problems) {
	if _, err := secret.ParseMode(strings.ToLower(strings.TrimSpace(s.Mode))); err != nil {
		p.add("ENGRAM_SECRETS", "must be mask, flag or off, got %q", s.Mode)
	}
}
