package httpapi

import (
	"context"
	"net/http"

	"github.com/danielgtaylor/huma/v2"
)

type traceListInput struct {
	UserPath
	Limit  int    `query:"limit" minimum:"1" maximum:"100" default:"20" doc:"Most traces in one page (1 to 100)."`
	Before string `query:"before" maxLength:"64" doc:"next_before of the previous page: only traces older than it."`
}

type traceListOutput struct {
	Body struct {
		Traces     []Trace `json:"traces" nullable:"false" doc:"The user's traces, newest first."`
		NextBefore string  `json:"next_before,omitempty" doc:"Pass as before for the next page; absent on the last page."`
	}
}

// registerTraceList adds the listing of a user's traces, newest first, paged by
// the id of the last trace seen (ids sort by time, so a page never repeats or
// skips one as new traces arrive).
func registerTraceList(api *API, svc ContextBuilder, tags []string) {
	log := api.opts.Logger
	register(api, huma.Operation{
		OperationID: "trace_list", Method: http.MethodGet, Path: "/users/{user}/traces",
		Summary: "List the user's context traces", Tags: tags,
		Description: "The traces of the user's context calls, newest first, at most limit a page; next_before pages on. " +
			"Only those within ENGRAM_TRACE_RETENTION_DAYS, and none while the user is being erased.",
		Errors: []int{http.StatusUnprocessableEntity},
	}, func(ctx context.Context, in *traceListInput) (*traceListOutput, error) {
		sc, err := in.scope(ctx, log)
		if err != nil {
			return nil, err
		}
		page, err := svc.ListTraces(ctx, sc, in.Before, in.Limit)
		if err != nil {
			return nil, problem(ctx, log, err, "query")
		}
		out := &traceListOutput{}
		out.Body.Traces = make([]Trace, 0, len(page))
		for _, t := range page {
			out.Body.Traces = append(out.Body.Traces, fromTrace(t))
		}
		if len(page) == in.Limit {
			out.Body.NextBefore = page[len(page)-1].ID
		}
		return out, nil
	})
}
