package profiles

import (
	"context"
	"maps"

	"engram/domain/memory"
)

// PurgeUser removes everything the profile stores hold of a user — profile,
// pending refresh, activity, reports, org entry and name keys (the users they
// managed are detached) — and says how much of each. The audit log's content-free
// entries stay. Erasure calls it.
func (s *Service) PurgeUser(ctx context.Context, scope memory.Scope) (map[string]int64, error) {
	counts := map[string]int64{}
	for _, p := range s.deps.Purgers {
		n, err := p.PurgeUser(ctx, scope)
		if err != nil {
			return counts, err
		}
		maps.Copy(counts, n)
	}
	return counts, nil
}
