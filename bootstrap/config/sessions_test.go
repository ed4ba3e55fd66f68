package config

import (
	"strings"
	"testing"
)

func TestLoad_sessionDefaultsFollowSeeds001And003(t *testing.T) {
	t.Parallel()
	c, err := Load("", nil)
	if err != nil {
		t.Fatal(err)
	}
	s := c.Sessions
	if s.MaxHistory != 40 || s.TTLDays != 7 || s.SummaryTTLDays != 30 || s.SummaryThreshold != 30 || s.SummaryKeep != 10 ||
		s.SummaryMaxChars != 300 || s.Summarizer != "auto" {
		t.Errorf("session defaults %+v", s)
	}
	if c.Redis.Addr != "" || c.Redis.KeyPrefix != "mem" || c.Redis.TimeoutMS != 250 || c.SummarizerUsesLLM() {
		t.Errorf("redis defaults %+v, summarizer uses the LLM %v", c.Redis, c.SummarizerUsesLLM())
	}
	c, err = Load("", []string{"ENGRAM_REDIS_ADDR= 127.0.0.1:6379 ", "ENGRAM_LLM_PROVIDER=openai", "LLM_MODEL=m", "LLM_API_BASE=http://x",
		"ENGRAM_REDIS_PASSWORD=hunter2", "ENGRAM_SESSION_SUMMARY_THRESHOLD=20"})
	if err != nil {
		t.Fatal(err)
	}
	if c.Redis.Addr != "127.0.0.1:6379" || !c.SummarizerUsesLLM() || c.Sessions.SummaryThreshold != 20 || c.Masked().Redis.Password != "****" {
		t.Errorf("overrides: %+v %+v", c.Redis, c.Sessions)
	}
}

func TestLoad_refusesSessionSettingsThatWouldLoseMessages(t *testing.T) {
	t.Parallel()
	for env, name := range map[string]string{
		"ENGRAM_SESSION_SUMMARY_THRESHOLD=50":  "ENGRAM_SESSION_SUMMARY_THRESHOLD", // above the 40 kept: trimmed before folded
		"ENGRAM_SESSION_SUMMARY_KEEP=30":       "ENGRAM_SESSION_SUMMARY_KEEP",
		"ENGRAM_SESSION_SUMMARY_TTL_DAYS=3":    "ENGRAM_SESSION_SUMMARY_TTL_DAYS",
		"ENGRAM_SESSION_SUMMARIZER=gpt":        "ENGRAM_SESSION_SUMMARIZER",
		"ENGRAM_SESSION_SUMMARIZER=llm":        "ENGRAM_SESSION_SUMMARIZER", // no model configured
		"ENGRAM_REDIS_KEY_PREFIX=mem:x":        "ENGRAM_REDIS_KEY_PREFIX",
		"ENGRAM_REDIS_TIMEOUT_MS=0":            "ENGRAM_REDIS_TIMEOUT_MS",
		"ENGRAM_SESSION_MAX_HISTORY=1":         "ENGRAM_SESSION_MAX_HISTORY",
		"ENGRAM_SESSION_FOLD_LEASE_SEC=1":      "ENGRAM_SESSION_FOLD_LEASE_SEC",
		"ENGRAM_SESSION_SWEEP_INTERVAL_SEC=-1": "ENGRAM_SESSION_SWEEP_INTERVAL_SEC",
	} {
		_, err := Load("", []string{env})
		if err == nil || !strings.Contains(err.Error(), name) {
			t.Errorf("%s: %v", env, err)
		}
	}
}
