package httpapi

import (
	"context"
	"net/http"
	"time"

	"github.com/danielgtaylor/huma/v2"

	"engram/app/erasure"
	"engram/app/users"
	"engram/domain/memory"
)

// Erasure is what the erasure operations need (app/erasure).
type Erasure interface {
	EraseUser(ctx context.Context, cmd erasure.EraseUser) (erasure.Erasure, error)
	DeleteMessage(ctx context.Context, cmd erasure.DeleteMessage) (erasure.DeletedMessage, error)
	PurgeMemory(ctx context.Context, cmd erasure.PurgeMemory) (memory.Memory, error)
}

// Users is what the operator's listings need (app/users).
type Users interface {
	ListUsers(ctx context.Context, q users.ListUsers) (users.UserPage, error)
	ListMessages(ctx context.Context, q users.ListMessages) (users.MessagePage, error)
}

type eraseUserInput struct {
	UserPath
	ActingUser string `header:"X-Acting-User" maxLength:"128" doc:"Who asks, kept in the erasure's audit record; default: the API key's holder."`
}

// PageQuery is the paging of a listing.
type PageQuery struct {
	Limit  int    `query:"limit" minimum:"1" maximum:"1000" default:"100" doc:"Most items in one page."`
	Cursor string `query:"cursor" maxLength:"512" doc:"next_cursor of the previous page."`
}

// UserSummary is one user of the tenant as GET /v1/users shows it.
type UserSummary struct {
	UserID       string     `json:"user_id"`
	Memories     int64      `json:"memories" doc:"Stored memories, active or deleted (a deleted memory stays in its history until purged)."`
	Messages     int64      `json:"messages" doc:"Stored conversation messages."`
	Sessions     int64      `json:"sessions" doc:"Live short-term sessions: the ones GET /v1/users/{user}/sessions lists."`
	Profile      int64      `json:"profile" doc:"1 when a profile is stored."`
	Org          int64      `json:"org" doc:"1 when the organisation graph has an entry for the user."`
	Activity     int64      `json:"activity" doc:"Stored activity events (tasks, workflow runs)."`
	LastActiveAt *time.Time `json:"last_active_at" nullable:"true" doc:"The latest change to anything of the user."`
}

// UserList is one page of users in id order.
type UserList struct {
	Items      []UserSummary `json:"items"`
	NextCursor string        `json:"next_cursor,omitempty" doc:"Absent on the last page."`
}

type userListOutput struct {
	Body UserList
}

type listMessagesInput struct {
	UserPath
	ConversationID string    `query:"conversation_id" maxLength:"128" doc:"Only this conversation."`
	Status         string    `query:"status" enum:"PENDING,PROCESSED,FAILED,SKIPPED" doc:"Only messages in this extraction state."`
	Since          time.Time `query:"since" doc:"Said at or after this time (RFC 3339)."`
	Until          time.Time `query:"until" doc:"Said before this time (RFC 3339)."`
	PageQuery
}

// MessageList is one page of a user's messages, oldest first.
type MessageList struct {
	Items      []MessageItem `json:"items"`
	NextCursor string        `json:"next_cursor,omitempty" doc:"Absent on the last page."`
}

type messageListOutput struct {
	Body MessageList
}

type deleteMessageInput struct {
	UserPath
	MessageID string `path:"message_id" minLength:"1" maxLength:"128" doc:"The message_id the message was posted with (or the one engram generated)."`
	Cascade   string `query:"cascade" enum:"memories" doc:"memories: also purge every memory learned from the message (its history content too)."`
}

// MessageErased is the answer to a cascading message delete.
type MessageErased struct {
	MessageID      string   `json:"message_id"`
	MemoriesPurged []string `json:"memories_purged" doc:"Keys of the memories purged with the message; each keeps one PURGE event without content."`
}

type deleteMessageOutput struct {
	Status int
	Body   *MessageErased
}

// RegisterErasure adds the users and erasure routes and the message deletion
// (README "Erasure"), and makes memory_delete's ?purge=true purge through er.
func RegisterErasure(api *API, er Erasure, us Users) {
	describeTag(api.Root, "users", "The tenant's users: what is stored of each, and erasure of everything of one user (GDPR/PIPL).")
	log := api.opts.Logger
	api.erasure = er
	register(api, huma.Operation{
		OperationID: "user_erase", Method: http.MethodDelete, Path: "/users/{user}",
		Summary: "Erase everything of a user", Tags: []string{"users"}, DefaultStatus: http.StatusAccepted,
		Description: "From the 202 on, no read, search or listing returns anything of the user, and writes for the user " +
			"are refused with 409 until the job is DONE. A worker then purges memories, their history, messages, jobs, " +
			"vectors and lexical documents (and every other registered store); follow it with GET /v1/jobs/{job_id}, " +
			"whose counts say what was removed. Repeating the request while the erasure is open returns the same job. " +
			"The DONE job stays as the content-free audit record: it names the user by the SHA-256 of tenant and user id.",
		Errors: []int{http.StatusUnprocessableEntity},
	}, func(ctx context.Context, in *eraseUserInput) (*jobAcceptedOutput, error) {
		sc, err := in.scope(ctx, log)
		if err != nil {
			return nil, err
		}
		e, err := er.EraseUser(ctx, erasure.EraseUser{Scope: sc, Actor: in.ActingUser})
		if err != nil {
			return nil, problem(ctx, log, err, "header")
		}
		return &jobAcceptedOutput{Body: JobAccepted{JobID: e.Job.ID, Status: string(e.Job.Status)}}, nil
	})

	register(api, huma.Operation{
		OperationID: "users_list", Method: http.MethodGet, Path: "/users",
		Metadata: map[string]any{reachMetadata: reachFiltered},
		Summary:  "List the tenant's users and what is stored of them", Tags: []string{"users"},
		Description: "Users with anything stored (memories, messages, sessions, a profile, an org entry, activity), in id order. " +
			"Users being erased are left out.",
		Errors: []int{http.StatusUnprocessableEntity},
	}, func(ctx context.Context, in *PageQuery) (*userListOutput, error) {
		page, err := us.ListUsers(ctx, users.ListUsers{Tenant: tenantFrom(ctx), Limit: in.Limit, Cursor: in.Cursor, Only: onlyUser(ctx)})
		if err != nil {
			return nil, problem(ctx, log, err, "query")
		}
		out := &userListOutput{Body: UserList{Items: make([]UserSummary, 0, len(page.Items)), NextCursor: page.NextCursor}}
		for _, u := range page.Items {
			out.Body.Items = append(out.Body.Items, UserSummary{
				UserID: u.User, Memories: u.Counts[users.KindMemories], Messages: u.Counts[users.KindMessages],
				Sessions: u.Counts[users.KindSessions], Profile: u.Counts[users.KindProfile], Org: u.Counts[users.KindOrg],
				Activity: u.Counts[users.KindActivity], LastActiveAt: timePtr(u.LastActiveAt),
			})
		}
		return out, nil
	})

	register(api, huma.Operation{
		OperationID: "message_list", Method: http.MethodGet, Path: "/users/{user}/messages",
		Summary: "List a user's messages, oldest first", Tags: []string{"messages"},
		Description: "Every stored message of the user with its extraction state, filtered by conversation, status and time; " +
			"page with next_cursor. A user being erased has none.",
		Errors: []int{http.StatusUnprocessableEntity},
	}, func(ctx context.Context, in *listMessagesInput) (*messageListOutput, error) {
		sc, err := in.scope(ctx, log)
		if err != nil {
			return nil, err
		}
		page, err := us.ListMessages(ctx, users.ListMessages{Scope: sc, ConversationID: in.ConversationID, Status: in.Status,
			Since: in.Since, Until: in.Until, Limit: in.Limit, Cursor: in.Cursor})
		if err != nil {
			return nil, problem(ctx, log, err, "query")
		}
		out := &messageListOutput{Body: MessageList{Items: make([]MessageItem, 0, len(page.Items)), NextCursor: page.NextCursor}}
		for _, m := range page.Items {
			out.Body.Items = append(out.Body.Items, fromMessage(m))
		}
		return out, nil
	})

	register(api, huma.Operation{
		OperationID: "message_delete", Method: http.MethodDelete, Path: "/users/{user}/messages/{message_id}",
		Summary: "Delete a message", Tags: []string{"messages"}, DefaultStatus: http.StatusNoContent,
		Description: "204: the message, its embedding, vector and lexical document are gone, and the vectors of its " +
			"neighbours are rebuilt without it. With ?cascade=memories, 200 and the keys of the memories learned from it, " +
			"purged with the content of their history. 409 while an extraction or an indexer holds the message for more " +
			"than a few seconds: retry.",
		Responses: map[string]*huma.Response{"200": {Description: "Deleted with its memories"}},
		Errors:    []int{http.StatusNotFound, http.StatusConflict, http.StatusUnprocessableEntity},
	}, func(ctx context.Context, in *deleteMessageInput) (*deleteMessageOutput, error) {
		sc, err := in.scope(ctx, log)
		if err != nil {
			return nil, err
		}
		cascade := in.Cascade == "memories"
		res, err := er.DeleteMessage(ctx, erasure.DeleteMessage{Scope: sc, MessageID: in.MessageID, Cascade: cascade})
		if err != nil {
			return nil, problem(ctx, log, err, "path")
		}
		if !cascade {
			return &deleteMessageOutput{Status: http.StatusNoContent}, nil
		}
		body := &MessageErased{MessageID: in.MessageID, MemoriesPurged: make([]string, 0, len(res.Purged))}
		for _, k := range res.Purged {
			body.MemoriesPurged = append(body.MemoriesPurged, k.String())
		}
		return &deleteMessageOutput{Status: http.StatusOK, Body: body}, nil
	})
}
