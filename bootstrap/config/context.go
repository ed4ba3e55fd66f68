package config

import "engram/domain/promptctx"

// Context is the context call: the block it writes and what it reads for it.
type Context struct {
	// Header opens the block (default [跨会话记忆]); the footer is "[/" + its name + "]".
	Header string `yaml:"header" env:"ENGRAM_CONTEXT_HEADER"`
	// Language of the section headings and the notice: zh (用户画像,
	// 最近对话, 对话摘要…) or en. The profile follows the profile's own language.
	Language    string `yaml:"language" env:"ENGRAM_CONTEXT_LANGUAGE"`
	BudgetChars int    `yaml:"budget_chars" env:"ENGRAM_CONTEXT_BUDGET_CHARS"`
	MaxEpisodes int    `yaml:"max_episodes" env:"ENGRAM_CONTEXT_MAX_EPISODES"`
	// RecentMessages is how many of the session's most recent messages are read.
	RecentMessages         int  `yaml:"recent_messages" env:"ENGRAM_CONTEXT_RECENT_MESSAGES"`
	IncludeInstructionLike bool `yaml:"include_instruction_like" env:"ENGRAM_CONTEXT_INCLUDE_INSTRUCTION_LIKE"`
	// Standing memories (constraints, this importance or more, pinned) are in
	// every block, within StandingShare of the budget.
	StandingMinImportance int     `yaml:"standing_min_importance" env:"ENGRAM_CONTEXT_STANDING_MIN_IMPORTANCE"`
	StandingShare         float64 `yaml:"standing_share" env:"ENGRAM_CONTEXT_STANDING_SHARE"`
	// QueryMaxChars is how much of a query the context call and search retrieve
	// with: a longer one is cut, keeping its end.
	QueryMaxChars int `yaml:"query_max_chars" env:"ENGRAM_QUERY_MAX_CHARS"`
}

// Traces are the context calls' traces.
type Traces struct {
	RetentionDays    int `yaml:"retention_days" env:"ENGRAM_TRACE_RETENTION_DAYS"`
	SweepIntervalSec int `yaml:"sweep_interval_sec" env:"ENGRAM_TRACE_SWEEP_INTERVAL_SEC"`
}

// validateContext checks the context and trace settings; bad is Validate's reporter.
func (c Config) validateContext(bad func(name, format string, args ...any)) {
	x := c.Context
	if err := promptctx.ValidateHeader(x.Header); err != nil {
		bad("ENGRAM_CONTEXT_HEADER", `must be one line of 3 to %d characters in square brackets, like "[跨会话记忆]", got %q`, promptctx.MaxHeaderLen, x.Header)
	}
	if _, ok := promptctx.ParseLanguage(x.Language); !ok {
		bad("ENGRAM_CONTEXT_LANGUAGE", "must be zh or en, got %q", x.Language)
	}
	for _, r := range []struct {
		name      string
		v, lo, hi int
	}{
		{"ENGRAM_CONTEXT_BUDGET_CHARS", x.BudgetChars, 100, 100_000},
		{"ENGRAM_CONTEXT_MAX_EPISODES", x.MaxEpisodes, 0, 100},
		{"ENGRAM_CONTEXT_RECENT_MESSAGES", x.RecentMessages, 0, 1000},
		{"ENGRAM_CONTEXT_STANDING_MIN_IMPORTANCE", x.StandingMinImportance, 1, 6},
		{"ENGRAM_QUERY_MAX_CHARS", x.QueryMaxChars, 100, 100_000},
		{"ENGRAM_TRACE_RETENTION_DAYS", c.Traces.RetentionDays, 1, 3650},
		{"ENGRAM_TRACE_SWEEP_INTERVAL_SEC", c.Traces.SweepIntervalSec, 1, 86400},
	} {
		if r.v < r.lo || r.v > r.hi {
			bad(r.name, "must be between %d and %d, got %d", r.lo, r.hi, r.v)
		}
	}
	if !(x.StandingShare >= 0 && x.StandingShare <= 1) {
		bad("ENGRAM_CONTEXT_STANDING_SHARE", "must be between 0 (no standing memories) and 1, a share of the budget, got %v", x.StandingShare)
	}
}
