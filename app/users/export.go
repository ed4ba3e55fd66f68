package users

import (
	"context"
	"errors"
	"slices"
	"strings"

	"engram/domain/memory"
	"engram/domain/session"
	"engram/ports"
)

// Export is GET /v1/users/{user}/export.
type Export struct {
	Scope memory.Scope
	Actor string // X-Acting-User: the user or a manager above them
}

// Export reads everything stored about the user into one document. The reads run
// after the erasure check and are checked again after, so a document never holds
// data of a user whose erasure was requested meanwhile.
func (p *Portability) Export(ctx context.Context, q Export) (Document, error) {
	if err := p.authorize(ctx, q.Scope, q.Actor, ActionExport); err != nil {
		return Document{}, err
	}
	if err := p.refuseErasing(ctx, q.Scope); err != nil {
		return Document{}, err
	}
	records, err := p.deps.Records.ExportUser(ctx, q.Scope)
	if err != nil {
		return Document{}, err
	}
	sessions, err := p.exportSessions(ctx, q.Scope)
	if err != nil {
		return Document{}, err
	}
	if err := p.refuseErasing(ctx, q.Scope); err != nil {
		return Document{}, err
	}
	return Document{Format: ExportFormat, Version: ExportVersion, User: q.Scope.User, Records: records, Sessions: sessions}, nil
}

// exportSessions reads each live session whole, in a stable order (flow, then
// session id), without the store's revision.
func (p *Portability) exportSessions(ctx context.Context, scope memory.Scope) ([]session.State, error) {
	metas, err := p.deps.Sessions.Sessions(ctx, scope, ports.SessionQuery{Limit: ports.MaxSessionList})
	if err != nil {
		return nil, err
	}
	out := make([]session.State, 0, len(metas))
	for _, m := range metas {
		st, err := p.deps.Sessions.ExportSession(ctx, m.Ref)
		if errors.Is(err, ports.ErrNotFound) {
			continue // expired or deleted since the listing
		}
		if err != nil {
			return nil, err
		}
		st.Rev = 0
		out = append(out, st)
	}
	slices.SortFunc(out, func(a, b session.State) int {
		if c := strings.Compare(a.Meta.Ref.FlowID, b.Meta.Ref.FlowID); c != 0 {
			return c
		}
		return strings.Compare(a.Meta.Ref.SessionID, b.Meta.Ref.SessionID)
	})
	return out, nil
}
