package httpapi

import (
	"context"
	"net/http"

	"github.com/danielgtaylor/huma/v2"

	"engram/ports"
)

// Reindexer requeues the vectors of one tenant.
type Reindexer interface {
	ReindexTenant(ctx context.Context, tenant string) (ports.Requeued, error)
}

// ReindexAccepted is the answer to POST /v1/admin/reindex.
type ReindexAccepted struct {
	Status   string `json:"status" enum:"queued" doc:"The vectors are rebuilt in the background by the indexer role."`
	Memories int64  `json:"memories" doc:"Memories of the tenant marked DIRTY."`
	Messages int64  `json:"messages" doc:"Conversation messages of the tenant marked DIRTY."`
}

type reindexOutput struct {
	Body ReindexAccepted
}

// RegisterAdmin adds POST /v1/admin/reindex: the calling tenant's memories and
// messages are marked DIRTY and the indexer rebuilds their vectors (after a change
// of embedding model or vector backend). A tenant can only reindex its own data;
// `engram reindex` does every tenant.
func RegisterAdmin(api *API, r Reindexer) {
	log := api.opts.Logger
	register(api, huma.Operation{
		OperationID: "admin_reindex", Method: http.MethodPost, Path: "/admin/reindex",
		Summary: "Rebuild the calling tenant's vectors in the background", Tags: []string{"lifecycle"},
		DefaultStatus: http.StatusAccepted,
		Description: "Marks every memory and conversation message of the calling tenant DIRTY; the indexer role " +
			"embeds them again and rewrites their vectors (message embeddings of an unchanged model are reused). " +
			"Search keeps answering meanwhile, lexically where a vector is missing. Progress shows in the " +
			"engram_vector_backlog metric.",
	}, func(ctx context.Context, _ *struct{}) (*reindexOutput, error) {
		n, err := r.ReindexTenant(ctx, tenantFrom(ctx))
		if err != nil {
			return nil, problem(ctx, log, err, "body")
		}
		return &reindexOutput{Body: ReindexAccepted{Status: "queued", Memories: n.Memories, Messages: n.Messages}}, nil
	})
}
