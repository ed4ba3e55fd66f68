package config

import "fmt"

// validateCost checks the settings that trade extraction latency for model
// calls: batching, parallel drain and the tenant budget.
func (c Config) validateCost() []error {
	var errs []error
	bad := func(name, format string, args ...any) {
		errs = append(errs, fmt.Errorf("%s: "+format, append([]any{name}, args...)...))
	}
	m := c.Memory
	if m.WorkerConcurrency < 1 || m.WorkerConcurrency > 256 {
		bad("LONG_TERM_MEMORY_WORKER_CONCURRENCY", "must be between 1 and 256, got %d", m.WorkerConcurrency)
	}
	if m.BatchMaxMessages < 0 || m.BatchMaxMessages > 500 {
		bad("LONG_TERM_MEMORY_BATCH_MAX_MESSAGES", "must be between 0 (no limit) and 500, got %d", m.BatchMaxMessages)
	}
	// A wait shorter than the debounce is coherent: messages are then due that
	// long after the first of them, however the debounce is set.
	if m.BatchMaxWaitSec < 0 || m.BatchMaxWaitSec > 86400 {
		bad("LONG_TERM_MEMORY_BATCH_MAX_WAIT_SEC", "must be between 0 (no limit) and 86400, got %v", m.BatchMaxWaitSec)
	}
	if c.LLM.TenantCallsPerMinute < 0 {
		bad("ENGRAM_LLM_TENANT_CALLS_PER_MINUTE", "must be 0 (unlimited) or more, got %d", c.LLM.TenantCallsPerMinute)
	}
	return errs
}
