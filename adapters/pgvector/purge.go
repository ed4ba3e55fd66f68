package pgvector

import (
	"context"

	"github.com/uptrace/bun"

	"engram/domain/memory"
	"engram/ports"
)

// PurgedVectors is the kind PurgeUser counts.
const PurgedVectors = "vectors"

var _ ports.UserPurger = (*Index)(nil)

// PurgeUser deletes the user's vectors from the table of every model registered in
// vector_tables (this model's and any left by an earlier one), through each
// table's (tenant, user, kind, at) index.
func (ix *Index) PurgeUser(ctx context.Context, scope memory.Scope) (map[string]int64, error) {
	removed := map[string]int64{PurgedVectors: 0}
	var tables []string
	if err := ix.db.NewRaw("SELECT table_name FROM vector_tables ORDER BY table_name").Scan(ctx, &tables); err != nil {
		return removed, wrap("list vector tables", err)
	}
	for _, table := range tables {
		res, err := ix.db.NewRaw("DELETE FROM ? WHERE tenant_id = ? AND user_id = ?", bun.Ident(table), scope.Tenant, scope.User).Exec(ctx)
		if err != nil {
			return removed, wrap("purge user vectors", err)
		}
		n, _ := res.RowsAffected()
		removed[PurgedVectors] += n
	}
	ix.mu.Lock()
	delete(ix.counts, [2]string{scope.Tenant, scope.User})
	ix.mu.Unlock()
	return removed, nil
}
