package httpapi

import (
	"context"
	"net/http"

	"github.com/danielgtaylor/huma/v2"

	"engram/app/erasure"
)

// SessionEraser is what the deletion of a session needs (app/erasure).
type SessionEraser interface {
	DeleteSession(ctx context.Context, cmd erasure.DeleteSession) (erasure.DeletedSession, error)
}

type deleteSessionInput struct {
	SessionPath
	FlowID  string `query:"flow_id" maxLength:"128" doc:"Only the session of this flow in the session store; without it, the session id in every flow. The stored messages (conversation_id = the session id) are shared by every flow of the session id and go either way."`
	Cascade string `query:"cascade" enum:"memories" doc:"memories: also purge every memory learned only from this chat (each event that brought it content came from it), with the content of its history."`
}

// SessionErased is the answer to a deletion with ?cascade=memories.
type SessionErased struct {
	SessionID       string   `json:"session_id"`
	MessagesDeleted int      `json:"messages_deleted" doc:"Stored messages of the session deleted (its turns as conversation messages)."`
	MemoriesPurged  []string `json:"memories_purged" doc:"Keys of the memories purged with the session; each keeps one PURGE event without content."`
}

type deleteSessionOutput struct {
	Status int
	Body   *SessionErased
}

// RegisterSessionDeletion adds DELETE /v1/users/{user}/sessions/{session}: the
// deletion of a chat, which reaches every store that holds it.
func RegisterSessionDeletion(api *API, er SessionEraser) {
	log := api.opts.Logger
	register(api, huma.Operation{
		OperationID: "session_delete", Method: http.MethodDelete, Path: "/users/{user}/sessions/{session}",
		Summary: "Delete a session: the whole chat", Tags: []string{"sessions"}, DefaultStatus: http.StatusNoContent,
		Description: "204: the session's recent messages, meta, summary and index entry are gone, and so are its turns as " +
			"stored messages (GET …/messages?conversation_id={session} lists none; their embeddings, vectors and lexical " +
			"documents go too), the traces of the context calls made in it, and the quotes of its messages in the user's other " +
			"traces (they keep the message id and purged: true). A turn still queued on its way to the stored messages is not " +
			"written after the delete. With ?cascade=memories, 200 and the keys of the memories learned only from this chat, " +
			"purged with the content of their history. 404 when nothing of the session is left; 409 while an extraction holds " +
			"one of its messages for more than a few seconds: retry; 503 while Redis is down: what it holds cannot be deleted " +
			"without it; retry shortly.",
		Responses: map[string]*huma.Response{"200": {Description: "Deleted with its memories"}},
		Errors:    []int{http.StatusNotFound, http.StatusConflict, http.StatusUnprocessableEntity, http.StatusServiceUnavailable},
	}, func(ctx context.Context, in *deleteSessionInput) (*deleteSessionOutput, error) {
		sc, err := in.scope(ctx, log)
		if err != nil {
			return nil, err
		}
		cascade := in.Cascade == "memories"
		res, err := er.DeleteSession(ctx, erasure.DeleteSession{Scope: sc, SessionID: in.Session, FlowID: in.FlowID, Cascade: cascade})
		if err != nil {
			return nil, problem(ctx, log, err, "query")
		}
		if !cascade {
			return &deleteSessionOutput{Status: http.StatusNoContent}, nil
		}
		body := &SessionErased{SessionID: in.Session, MessagesDeleted: res.Messages, MemoriesPurged: make([]string, 0, len(res.Purged))}
		for _, k := range res.Purged {
			body.MemoriesPurged = append(body.MemoriesPurged, k.String())
		}
		return &deleteSessionOutput{Status: http.StatusOK, Body: body}, nil
	})
}
