package ports

import "time"

// LLMBudget is each tenant's allowance of model calls
// (ENGRAM_LLM_TENANT_CALLS_PER_MINUTE), so one tenant's traffic cannot spend what
// the others need. Work over budget waits for it; it is never failed.
type LLMBudget interface {
	// Take spends one call of the tenant's budget at now and reports true, or,
	// when the budget is spent, spends nothing and reports false with the time
	// the next call will be allowed.
	Take(tenant string, now time.Time) (ok bool, next time.Time)
}
