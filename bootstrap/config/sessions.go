package config

import (
	"fmt"
	"strings"
)

// Redis is the server of short-term sessions. Empty Addr: sessions live in the
// SQL database.
type Redis struct {
	Addr     string `yaml:"addr" env:"ENGRAM_REDIS_ADDR"`
	Username string `yaml:"username" env:"ENGRAM_REDIS_USERNAME"`
	Password string `yaml:"password" env:"ENGRAM_REDIS_PASSWORD" secret:"value"`
	DB       int    `yaml:"db" env:"ENGRAM_REDIS_DB"`
	// KeyPrefix starts every key (default mem).
	KeyPrefix string `yaml:"key_prefix" env:"ENGRAM_REDIS_KEY_PREFIX"`
	// TimeoutMS bounds each session call to Redis; past it the call is served by
	// SQL and Redis is marked down until a probe answers.
	TimeoutMS       int `yaml:"timeout_ms" env:"ENGRAM_REDIS_TIMEOUT_MS"`
	ProbeIntervalMS int `yaml:"probe_interval_ms" env:"ENGRAM_REDIS_PROBE_INTERVAL_MS"`
	// ClientCache serves the listing's meta reads from rueidis' client-side cache.
	ClientCache bool `yaml:"client_cache" env:"ENGRAM_REDIS_CLIENT_CACHE"`
}

// Sessions is short-term session memory: its bounds and its
// recursive summary.
type Sessions struct {
	MaxHistory       int `yaml:"max_history" env:"ENGRAM_SESSION_MAX_HISTORY"`
	TTLDays          int `yaml:"ttl_days" env:"ENGRAM_SESSION_TTL_DAYS"`
	SummaryTTLDays   int `yaml:"summary_ttl_days" env:"ENGRAM_SESSION_SUMMARY_TTL_DAYS"`
	SummaryThreshold int `yaml:"summary_threshold" env:"ENGRAM_SESSION_SUMMARY_THRESHOLD"`
	SummaryKeep      int `yaml:"summary_keep" env:"ENGRAM_SESSION_SUMMARY_KEEP"`
	SummaryMaxChars  int `yaml:"summary_max_chars" env:"ENGRAM_SESSION_SUMMARY_MAX_CHARS"`
	// Summarizer: auto (the model when ENGRAM_LLM_PROVIDER has one, else the
	// offline summarizer), llm or rules.
	Summarizer       string `yaml:"summarizer" env:"ENGRAM_SESSION_SUMMARIZER"`
	FoldIntervalSec  int    `yaml:"fold_interval_sec" env:"ENGRAM_SESSION_FOLD_INTERVAL_SEC"`
	FoldLeaseSec     int    `yaml:"fold_lease_sec" env:"ENGRAM_SESSION_FOLD_LEASE_SEC"`
	SweepIntervalSec int    `yaml:"sweep_interval_sec" env:"ENGRAM_SESSION_SWEEP_INTERVAL_SEC"`
}

// SummarizerUsesLLM reports whether session summaries are written by the model.
func (c Config) SummarizerUsesLLM() bool {
	switch c.Sessions.Summarizer {
	case "llm":
		return true
	case "rules":
		return false
	}
	return c.LLM.Provider != "rules"
}

// validate checks the session settings; llmProvider is ENGRAM_LLM_PROVIDER,
// which an llm summarizer needs to be a model.
func (s Sessions) validate(p *problems, llmProvider string) {
	between(p, "ENGRAM_SESSION_MAX_HISTORY", s.MaxHistory, 2, 1000, "")
	between(p, "ENGRAM_SESSION_TTL_DAYS", s.TTLDays, 1, 3650, "")
	between(p, "ENGRAM_SESSION_SUMMARY_TTL_DAYS", s.SummaryTTLDays, 1, 3650, "")
	between(p, "ENGRAM_SESSION_SUMMARY_MAX_CHARS", s.SummaryMaxChars, 50, 4000, "")
	between(p, "ENGRAM_SESSION_FOLD_INTERVAL_SEC", s.FoldIntervalSec, 1, 86400, "")
	between(p, "ENGRAM_SESSION_FOLD_LEASE_SEC", s.FoldLeaseSec, 10, 86400, "")
	between(p, "ENGRAM_SESSION_SWEEP_INTERVAL_SEC", s.SweepIntervalSec, 1, 86400, "")
	if s.SummaryTTLDays < s.TTLDays {
		p.add("ENGRAM_SESSION_SUMMARY_TTL_DAYS", "must not be below ENGRAM_SESSION_TTL_DAYS (%d): the summary outlives the messages, got %d", s.TTLDays, s.SummaryTTLDays)
	}
	// Messages past MaxHistory are trimmed: a fold must start before that, and
	// leave some of them to fold.
	between(p, "ENGRAM_SESSION_SUMMARY_THRESHOLD", s.SummaryThreshold, 2, s.MaxHistory,
		"must be between %[1]d and ENGRAM_SESSION_MAX_HISTORY (%[2]d), or messages are trimmed before they are folded; got %[3]d")
	between(p, "ENGRAM_SESSION_SUMMARY_KEEP", s.SummaryKeep, 0, s.SummaryThreshold-1,
		"must be between %[1]d and ENGRAM_SESSION_SUMMARY_THRESHOLD-1 (%[2]d), got %[3]d")
	switch s.Summarizer {
	case "auto", "rules":
	case "llm":
		if llmProvider == "rules" {
			p.add("ENGRAM_SESSION_SUMMARIZER", "llm needs a model: set ENGRAM_LLM_PROVIDER to openai or ollama")
		}
	default:
		p.add("ENGRAM_SESSION_SUMMARIZER", "must be auto, llm or rules, got %q", s.Summarizer)
	}
}

func (r Redis) validate(p *problems) {
	between(p, "ENGRAM_REDIS_DB", r.DB, 0, 1000, "")
	between(p, "ENGRAM_REDIS_TIMEOUT_MS", r.TimeoutMS, 1, 60000, "")
	between(p, "ENGRAM_REDIS_PROBE_INTERVAL_MS", r.ProbeIntervalMS, 10, 600000, "")
	if r.KeyPrefix == "" || len(r.KeyPrefix) > 64 {
		p.add("ENGRAM_REDIS_KEY_PREFIX", "must be 1 to 64 characters, got %q", r.KeyPrefix)
	}
	// The prefix must not hold a key's separator, a SCAN pattern's metacharacter
	// or a space: keys are split on ":" and matched by patterns.
	if i := strings.IndexFunc(r.KeyPrefix, func(ch rune) bool { return strings.ContainsRune(":*?[]\\", ch) || ch <= ' ' }); i >= 0 {
		p.add("ENGRAM_REDIS_KEY_PREFIX", "must not contain %q", fmt.Sprintf("%c", []rune(r.KeyPrefix[i:])[0]))
	}
}
