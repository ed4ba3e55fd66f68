package bootstrap

import (
	"time"

	"engram/adapters/llmbudget"
	"engram/adapters/rules/gate"
	"engram/app/extraction"
	"engram/bootstrap/config"
	"engram/domain/conversation"
	"engram/ports"
)

// batching is the message store's limits on the debounce push
// (LONG_TERM_MEMORY_BATCH_MAX_MESSAGES, LONG_TERM_MEMORY_BATCH_MAX_WAIT_SEC).
func batching(cfg config.Config) conversation.Batching {
	return conversation.Batching{
		MaxMessages: cfg.Memory.BatchMaxMessages,
		MaxWait:     time.Duration(cfg.Memory.BatchMaxWaitSec * float64(time.Second)),
	}
}

// newBudget is each tenant's allowance of model calls in this process
// (ENGRAM_LLM_TENANT_CALLS_PER_MINUTE; 0: unlimited).
func newBudget(cfg config.Config) ports.LLMBudget {
	return llmbudget.New(cfg.LLM.TenantCallsPerMinute)
}

// newGate is the LLM-free gate in front of the extract call (adapters/rules/gate).
func newGate() (extraction.Gate, error) { return gate.New() }
