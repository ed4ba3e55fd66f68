package users

import (
	"context"
	"errors"
	"fmt"

	"engram/domain/conversation"
	"engram/domain/invalid"
	"engram/domain/memory"
	"engram/domain/session"
	"engram/ports"
)

// Import is POST /v1/users/{user}/import.
type Import struct {
	Scope    memory.Scope
	Actor    string
	Document Document
}

// Imported counts, by section, what an import wrote; what was stored already is
// kept as it is and not counted, so a repeated import writes nothing.
type Imported struct {
	Written map[string]int
}

// Import stores a document exported by this or another deployment: every row
// with the ids and times it had, each unless one with its key is stored. The
// search index is rebuilt for what was written, vectors are computed anew.
func (p *Portability) Import(ctx context.Context, in Import) (Imported, error) {
	if err := checkDocument(in.Scope, in.Document); err != nil {
		return Imported{}, err
	}
	if err := p.authorize(ctx, in.Scope, in.Actor, ActionImport); err != nil {
		return Imported{}, err
	}
	if err := p.refuseErasing(ctx, in.Scope); err != nil {
		return Imported{}, err
	}
	written, err := p.deps.Records.ImportUser(ctx, in.Scope, in.Document.Records)
	if err != nil {
		return Imported{}, err
	}
	written["sessions"], err = p.importSessions(ctx, in.Scope, in.Document.Sessions)
	if err != nil {
		return Imported{}, err
	}
	if err := p.reindex(ctx, in.Scope); err != nil {
		return Imported{}, fmt.Errorf("index the imported data: %w", err)
	}
	return Imported{Written: written}, nil
}

func checkDocument(scope memory.Scope, d Document) error {
	var errs []error
	if d.Format != ExportFormat {
		errs = append(errs, invalid.FieldValue("format", d.Format, "must be %q", ExportFormat))
	}
	if d.Version != ExportVersion {
		errs = append(errs, invalid.FieldValue("version", d.Version, "must be %d: this server reads version %d documents", ExportVersion, ExportVersion))
	}
	if d.User != scope.User {
		errs = append(errs, invalid.FieldValue("user", d.User, "must be %q, the user the path names: a document is imported for the user it was exported from", scope.User))
	}
	for i, st := range d.Sessions {
		if _, err := session.ParseRef(scope, st.Meta.Ref.FlowID, st.Meta.Ref.SessionID); err != nil {
			errs = append(errs, invalid.Field(fmt.Sprintf("sessions[%d]", i), "%v", err))
		}
	}
	return invalid.Join(errs...)
}

// importSessions writes each session the store does not hold; one it holds
// (the same or newer turns) is kept.
func (p *Portability) importSessions(ctx context.Context, scope memory.Scope, states []session.State) (int, error) {
	written := 0
	for _, st := range states {
		st.Meta.Ref.Scope = scope
		st.Rev = 0
		stored, err := p.deps.Sessions.ExportSession(ctx, st.Meta.Ref)
		switch {
		case err == nil && stored.Rev > 0:
			continue
		case err != nil && !errors.Is(err, ports.ErrNotFound):
			return written, err
		}
		if err := p.deps.Sessions.ReplaceSession(ctx, st, 0); err != nil {
			if errors.Is(err, ports.ErrConflict) {
				continue // written meanwhile: what is stored stays
			}
			return written, err
		}
		written++
	}
	return written, nil
}

// reindex puts the user's memories and messages into the search index.
func (p *Portability) reindex(ctx context.Context, scope memory.Scope) error {
	var mems []memory.Memory
	q := ports.MemoryQuery{IncludeInactive: true, Limit: 1000, Now: p.deps.Clock.Now()}
	for {
		page, err := p.deps.Memories.List(ctx, scope, q)
		if err != nil {
			return err
		}
		mems = append(mems, page.Items...)
		if page.NextKey.String() == "" {
			break
		}
		q.AfterKey = page.NextKey
	}
	var msgs []conversation.Message
	mq := ports.MessageQuery{Limit: 1000}
	for {
		page, err := p.deps.Messages.ListMessages(ctx, scope, mq)
		if err != nil {
			return err
		}
		msgs = append(msgs, page.Items...)
		if !page.More || len(page.Items) == 0 {
			break
		}
		last := page.Items[len(page.Items)-1]
		mq.After = &ports.MessageCursor{CreatedAt: last.CreatedAt, Seq: last.Seq}
	}
	return p.deps.Indexer.IndexImported(ctx, mems, msgs)
}
