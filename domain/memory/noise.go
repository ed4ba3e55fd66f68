package memory

import "strings"

// NoiseRule is a family of keys that past deployments filled with short-lived or
// internal data (weather snapshots, tool lists, system state, period finance). Such
// keys are refused at write time and hidden at read time, so a store that already
// holds them is cleaned up on every path.
type NoiseRule struct {
	Prefix string // matched against the normalised key
	Reason string
}

// NoiseRules are the known noise keys: system state, never user memory.
var NoiseRules = []NoiseRule{
	{Prefix: "weather-date_", Reason: "weather snapshots are short-lived"},
	{Prefix: "tool-", Reason: "tool lists are system state, not user memory"},
	{Prefix: "system-", Reason: "system state is not user memory"},
	{Prefix: "reminder-last_", Reason: "last-reminder markers are short-lived"},
	{Prefix: "finance-monthly_", Reason: "period finance summaries are short-lived"},
	{Prefix: "finance-weekly_", Reason: "period finance summaries are short-lived"},
	{Prefix: "finance-daily_", Reason: "period finance summaries are short-lived"},
}

// NoiseRuleFor returns the rule a key matches, if any.
func NoiseRuleFor(k Key) (NoiseRule, bool) {
	for _, r := range NoiseRules {
		if strings.HasPrefix(k.value, r.Prefix) {
			return r, true
		}
	}
	return NoiseRule{}, false
}

// IsNoise reports whether the key belongs to a noise family.
func IsNoise(k Key) bool {
	_, ok := NoiseRuleFor(k)
	return ok
}
