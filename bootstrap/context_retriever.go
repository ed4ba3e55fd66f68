package bootstrap

import (
	"context"

	"engram/app/contextbuild"
	"engram/app/retrieval"
)

// ContextRetriever is the bridge from the context call (app/contextbuild) to the
// search use case (app/retrieval): one search per source, explained, in the
// configured mode and min_score. It converts between the two use cases' types and
// holds no logic of its own beyond the mode of past-message searches.
type ContextRetriever struct {
	Search *retrieval.Service
	// MessagesMode is the mode past messages are searched in; "" for the
	// configured one. Set it (MessagesModeFor) when the configured mode is
	// full_inject, which returns memories only.
	MessagesMode string
}

var _ contextbuild.Retriever = ContextRetriever{}

// MessagesModeFor is the mode past messages are searched in under the configured
// mode: auto instead of full_inject, else the configured one ("").
func MessagesModeFor(configured string) string {
	if retrieval.Mode(configured) == retrieval.ModeFullInject {
		return string(retrieval.ModeAuto)
	}
	return ""
}

// Retrieve runs one search and converts its answer.
func (r ContextRetriever) Retrieve(ctx context.Context, q contextbuild.Query) (contextbuild.Found, error) {
	s := retrieval.Search{Scope: q.Scope, Query: q.Text, Summary: q.Summary, Within: string(q.Within), Limit: q.Limit, Explain: true}
	if q.Within == contextbuild.WithinMessages {
		s.Mode = r.MessagesMode
	}
	res, err := r.Search.Search(ctx, s)
	if err != nil {
		return contextbuild.Found{}, err
	}
	out := contextbuild.Found{ModeUsed: string(res.ModeUsed), FallbackReason: res.FallbackReason, Unread: res.Unread}
	for _, it := range res.Items {
		out.Hits = append(out.Hits, contextbuild.Hit{Memory: it.Memory, Message: it.Message, Score: it.Score})
	}
	for _, d := range res.Dropped {
		out.Dropped = append(out.Dropped, contextbuild.Hit{Memory: d.Memory, Message: d.Message, Score: d.Score, Reason: d.Reason})
	}
	return out, nil
}
