package config

import (
	"strings"
	"testing"
)

// Every wrong setting is named at once, each section's by its own variable, so an
// operator fixes them in one round.
func TestValidate_namesEveryWrongSettingAtOnce(t *testing.T) {
	t.Parallel()
	_, err := Load("", []string{
		"ENGRAM_HTTP_ADDR=8080",
		"LONG_TERM_MEMORY_RETRIEVE_LIMIT=101",
		"ENGRAM_SESSION_SUMMARY_KEEP=40",
		"ENGRAM_CONTEXT_STANDING_MIN_IMPORTANCE=7",
		"ENGRAM_REDIS_KEY_PREFIX=a b",
	})
	if err == nil {
		t.Fatal("Load accepted five wrong settings")
	}
	for _, want := range []string{
		`ENGRAM_HTTP_ADDR: must be host:port, got "8080"`,
		"LONG_TERM_MEMORY_RETRIEVE_LIMIT: must be between 1 and 100, got 101",
		"ENGRAM_SESSION_SUMMARY_KEEP: must be between 0 and ENGRAM_SESSION_SUMMARY_THRESHOLD-1 (29), got 40",
		"ENGRAM_CONTEXT_STANDING_MIN_IMPORTANCE: must be between 1 and 6, got 7",
		`ENGRAM_REDIS_KEY_PREFIX: must not contain " "`,
	} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error lacks %q:\n%v", want, err)
		}
	}
}

// NaN is never within a range: a float setting of NaN is refused, not taken as
// "no debounce" or "no wait".
func TestValidate_refusesNaN(t *testing.T) {
	t.Parallel()
	for _, name := range []string{
		"LONG_TERM_MEMORY_DEBOUNCE_SEC", "LONG_TERM_MEMORY_BATCH_MAX_WAIT_SEC", "LONG_TERM_MEMORY_MIN_SCORE",
		"ENGRAM_RATE_LIMIT_RPS", "ENGRAM_CONTEXT_STANDING_SHARE", "MEMORY_EMBEDDING_DENSE_WEIGHT",
	} {
		_, err := Load("", []string{name + "=NaN"})
		if err == nil || !strings.Contains(err.Error(), name+": must be between") {
			t.Errorf("%s=NaN: %v", name, err)
		}
	}
}
