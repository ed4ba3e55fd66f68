package retrieval

import (
	"context"
	"fmt"
)

// DefaultWarmUsers is how many users Warm loads at most.
const DefaultWarmUsers = 100

// Warm loads the lexical indexes of the users with the most changes (up to users
// of them, and no more than half the cache's budget) before anyone searches, so
// that the first search of a user with 100,000 memories after a restart does not
// pay a load of seconds (docs/BENCHMARKS.md "Search latency at scale"). It stops
// when ctx ends; it returns how many users it loaded.
func (s *Service) Warm(ctx context.Context, users int) (int, error) {
	if users <= 0 {
		users = DefaultWarmUsers
	}
	scopes, err := s.deps.Lexical.LexicalUsers(ctx, users)
	if err != nil {
		return 0, fmt.Errorf("warm lexical indexes: %w", err)
	}
	loaded := 0
	for _, sc := range scopes {
		if ctx.Err() != nil || s.lexical.size() >= s.lexical.maxDocs/2 {
			break
		}
		u, err := s.lexical.acquire(ctx, sc)
		if err != nil {
			return loaded, fmt.Errorf("warm lexical indexes: %w", err)
		}
		u.mu.RUnlock()
		loaded++
	}
	return loaded, nil
}
