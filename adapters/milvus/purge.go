package milvus

import (
	"context"

	"github.com/milvus-io/milvus/client/v2/milvusclient"

	"engram/domain/invalid"
	"engram/domain/memory"
	"engram/ports"
)

// PurgedVectors is the kind PurgeUser counts.
const PurgedVectors = "vectors"

var _ ports.UserPurger = (*Index)(nil)

// PurgeUser deletes every entity of the user from the collection with one delete
// expression on the partition key, the tenant and the user (userFilter). Milvus
// counts what the expression matched.
func (ix *Index) PurgeUser(ctx context.Context, scope memory.Scope) (map[string]int64, error) {
	removed := map[string]int64{PurgedVectors: 0}
	if scope.Tenant == "" || scope.User == "" {
		return removed, invalid.Field("scope", "needs a tenant and a user: a purge is confined to one user")
	}
	if err := checkText("tenant", scope.Tenant, maxTenantBytes); err != nil {
		return removed, err
	}
	if err := checkText("user", scope.User, maxUserBytes); err != nil {
		return removed, err
	}
	err := ix.call(ctx, "purge user", func(ctx context.Context, c *milvusclient.Client) error {
		res, err := c.Delete(ctx, milvusclient.NewDeleteOption(ix.collection).WithExpr(userFilter(scope.Tenant, scope.User)))
		removed[PurgedVectors] = res.DeleteCount
		return err
	})
	return removed, err
}
