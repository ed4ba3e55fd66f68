package config

import (
	"strings"
	"testing"
)

func TestLoad_costSettingsHaveTheirDefaults(t *testing.T) {
	t.Parallel()
	c, err := Load("", nil)
	if err != nil {
		t.Fatal(err)
	}
	if c.Memory.WorkerConcurrency != 8 || c.Memory.BatchMaxMessages != 20 || c.Memory.BatchMaxWaitSec != 60 || c.LLM.TenantCallsPerMinute != 0 {
		t.Errorf("memory %+v, llm budget %d", c.Memory, c.LLM.TenantCallsPerMinute)
	}
}

func TestLoad_badCostSettingsNameTheVariable(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct{ env, name string }{
		{"LONG_TERM_MEMORY_WORKER_CONCURRENCY=0", "LONG_TERM_MEMORY_WORKER_CONCURRENCY"},
		{"LONG_TERM_MEMORY_BATCH_MAX_MESSAGES=-1", "LONG_TERM_MEMORY_BATCH_MAX_MESSAGES"},
		{"LONG_TERM_MEMORY_BATCH_MAX_WAIT_SEC=-5", "LONG_TERM_MEMORY_BATCH_MAX_WAIT_SEC"},
		{"ENGRAM_LLM_TENANT_CALLS_PER_MINUTE=-3", "ENGRAM_LLM_TENANT_CALLS_PER_MINUTE"},
	} {
		if _, err := Load("", []string{tt.env}); err == nil || !strings.Contains(err.Error(), tt.name) {
			t.Errorf("Load(%s) error = %v, want one naming %s", tt.env, err, tt.name)
		}
	}
	if _, err := Load("", []string{"LONG_TERM_MEMORY_BATCH_MAX_WAIT_SEC=0", "LONG_TERM_MEMORY_BATCH_MAX_MESSAGES=0"}); err != nil {
		t.Errorf("no batching limits: %v", err)
	}
}
