package contextbuild

import (
	"context"

	"engram/domain/memory"
	"engram/ports"
)

// TraceEraser removes erased content from the traces not yet written, then from
// the stored ones (ports.TraceEraser over the recorder's store).
type TraceEraser struct {
	Recorder *TraceRecorder
	Store    ports.TraceEraser
}

var _ ports.TraceEraser = TraceEraser{}

// RedactTraces redacts the pending traces of the user, then the stored ones.
func (e TraceEraser) RedactTraces(ctx context.Context, scope memory.Scope, erased map[string]string) (int64, error) {
	r := e.Recorder
	r.writing.Lock()
	defer r.writing.Unlock()
	var n int64
	r.mu.Lock()
	for id, t := range r.pending {
		if t.Scope == scope && t.Redact(erased) {
			r.pending[id] = t
			n++
		}
	}
	r.mu.Unlock()
	stored, err := e.Store.RedactTraces(ctx, scope, erased)
	return n + stored, err
}

// DeleteSessionTraces forgets the pending traces of the session, then deletes
// the stored ones.
func (e TraceEraser) DeleteSessionTraces(ctx context.Context, scope memory.Scope, sessionID, flowID string) (int64, error) {
	r := e.Recorder
	r.writing.Lock()
	defer r.writing.Unlock()
	var n int64
	r.mu.Lock()
	for id, t := range r.pending {
		if t.Scope == scope && t.OfSession(sessionID, flowID) {
			delete(r.pending, id)
			r.forgotten[id] = true
			if r.latest[scope] == id {
				delete(r.latest, scope)
			}
			n++
		}
	}
	r.mu.Unlock()
	stored, err := e.Store.DeleteSessionTraces(ctx, scope, sessionID, flowID)
	return n + stored, err
}
