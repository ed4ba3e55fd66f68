package config

import "fmt"

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

// validateSessions checks the session settings; bad is Validate's reporter.
func (c Config) validateSessions(bad func(name, format string, args ...any)) {
	s, r := c.Sessions, c.Redis
	ranges := []struct {
		name      string
		v, lo, hi int
	}{
		{"ENGRAM_SESSION_MAX_HISTORY", s.MaxHistory, 2, 1000},
		{"ENGRAM_SESSION_TTL_DAYS", s.TTLDays, 1, 3650},
		{"ENGRAM_SESSION_SUMMARY_TTL_DAYS", s.SummaryTTLDays, 1, 3650},
		{"ENGRAM_SESSION_SUMMARY_MAX_CHARS", s.SummaryMaxChars, 50, 4000},
		{"ENGRAM_SESSION_FOLD_INTERVAL_SEC", s.FoldIntervalSec, 1, 86400},
		{"ENGRAM_SESSION_FOLD_LEASE_SEC", s.FoldLeaseSec, 10, 86400},
		{"ENGRAM_SESSION_SWEEP_INTERVAL_SEC", s.SweepIntervalSec, 1, 86400},
		{"ENGRAM_REDIS_DB", r.DB, 0, 1000},
		{"ENGRAM_REDIS_TIMEOUT_MS", r.TimeoutMS, 1, 60000},
		{"ENGRAM_REDIS_PROBE_INTERVAL_MS", r.ProbeIntervalMS, 10, 600000},
	}
	for _, x := range ranges {
		if x.v < x.lo || x.v > x.hi {
			bad(x.name, "must be between %d and %d, got %d", x.lo, x.hi, x.v)
		}
	}
	if s.SummaryTTLDays < s.TTLDays {
		bad("ENGRAM_SESSION_SUMMARY_TTL_DAYS", "must not be below ENGRAM_SESSION_TTL_DAYS (%d): the summary outlives the messages, got %d", s.TTLDays, s.SummaryTTLDays)
	}
	if s.SummaryThreshold < 2 || s.SummaryThreshold > s.MaxHistory {
		bad("ENGRAM_SESSION_SUMMARY_THRESHOLD", "must be between 2 and ENGRAM_SESSION_MAX_HISTORY (%d), or messages are trimmed before they are folded; got %d", s.MaxHistory, s.SummaryThreshold)
	}
	if s.SummaryKeep < 0 || s.SummaryKeep >= s.SummaryThreshold {
		bad("ENGRAM_SESSION_SUMMARY_KEEP", "must be between 0 and ENGRAM_SESSION_SUMMARY_THRESHOLD-1 (%d), got %d", s.SummaryThreshold-1, s.SummaryKeep)
	}
	switch s.Summarizer {
	case "auto", "rules":
	case "llm":
		if c.LLM.Provider == "rules" {
			bad("ENGRAM_SESSION_SUMMARIZER", "llm needs a model: set ENGRAM_LLM_PROVIDER to openai or ollama")
		}
	default:
		bad("ENGRAM_SESSION_SUMMARIZER", "must be auto, llm or rules, got %q", s.Summarizer)
	}
	if r.KeyPrefix == "" || len(r.KeyPrefix) > 64 {
		bad("ENGRAM_REDIS_KEY_PREFIX", "must be 1 to 64 characters, got %q", r.KeyPrefix)
	}
	for _, ch := range r.KeyPrefix {
		if ch == ':' || ch == '*' || ch == '?' || ch == '[' || ch == ']' || ch == '\\' || ch <= ' ' {
			bad("ENGRAM_REDIS_KEY_PREFIX", "must not contain %q", fmt.Sprintf("%c", ch))
			break
		}
	}
}
