package config

import (
	"engram/domain/memory"
	"engram/domain/promptctx"
)

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

func (x Context) validate(p *problems) {
	if err := promptctx.ValidateHeader(x.Header); err != nil {
		p.add("ENGRAM_CONTEXT_HEADER", `must be one line of 3 to %d characters in square brackets, like "[跨会话记忆]", got %q`, promptctx.MaxHeaderLen, x.Header)
	}
	if _, ok := promptctx.ParseLanguage(x.Language); !ok {
		p.add("ENGRAM_CONTEXT_LANGUAGE", "must be zh or en, got %q", x.Language)
	}
	between(p, "ENGRAM_CONTEXT_BUDGET_CHARS", x.BudgetChars, 100, 100_000, "")
	between(p, "ENGRAM_CONTEXT_MAX_EPISODES", x.MaxEpisodes, 0, 100, "")
	between(p, "ENGRAM_CONTEXT_RECENT_MESSAGES", x.RecentMessages, 0, 1000, "")
	// One above the highest importance: only pinned memories and constraints stand.
	between(p, "ENGRAM_CONTEXT_STANDING_MIN_IMPORTANCE", x.StandingMinImportance, memory.MinImportance, memory.MaxImportance+1, "")
	between(p, "ENGRAM_QUERY_MAX_CHARS", x.QueryMaxChars, 100, 100_000, "")
	between(p, "ENGRAM_CONTEXT_STANDING_SHARE", x.StandingShare, 0, 1, "must be between %[1]v (no standing memories) and %[2]v, a share of the budget, got %[3]v")
}

func (t Traces) validate(p *problems) {
	between(p, "ENGRAM_TRACE_RETENTION_DAYS", t.RetentionDays, 1, 3650, "")
	between(p, "ENGRAM_TRACE_SWEEP_INTERVAL_SEC", t.SweepIntervalSec, 1, 86400, "")
}
