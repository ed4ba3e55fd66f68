package config

// validateCost checks the settings that trade extraction latency for model
// calls: batching and parallel drain (the tenant budget is the LLM's).
func (m Memory) validateCost(p *problems) {
	between(p, "LONG_TERM_MEMORY_WORKER_CONCURRENCY", m.WorkerConcurrency, 1, 256, "")
	between(p, "LONG_TERM_MEMORY_BATCH_MAX_MESSAGES", m.BatchMaxMessages, 0, 500, "must be between %[1]d (no limit) and %[2]d, got %[3]d")
	// A wait shorter than the debounce is coherent: messages are then due that
	// long after the first of them, however the debounce is set.
	between(p, "LONG_TERM_MEMORY_BATCH_MAX_WAIT_SEC", m.BatchMaxWaitSec, 0, 86400, "must be between %[1]v (no limit) and %[2]v, got %[3]v")
}
