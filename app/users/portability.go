package users

import (
	"context"
	"fmt"

	"engram/domain/conversation"
	"engram/domain/memory"
	"engram/domain/org"
	"engram/domain/session"
	"engram/ports"
)

// The export document: everything stored about one user, in one versioned
// format that the import takes back (docs/EXPORT.md).
const (
	ExportFormat  = "engram.user-export"
	ExportVersion = 1
)

// Audit actions of exports and imports; a refused attempt ends in ".denied".
const (
	ActionExport = "user.export"
	ActionImport = "user.import"
	denied       = ".denied"
)

// Document is one user's export.
type Document struct {
	Format  string
	Version int
	User    string
	// Records are the SQL truth tables' rows, by section (ports.RecordSections).
	Records map[string][]ports.Record
	// Sessions are the user's live short-term sessions, oldest activity first.
	Sessions []session.State
}

// SessionTransfer is the session store seen whole: the user's sessions, each
// read or written in one piece (ports.SessionStore, ports.SessionImporter).
type SessionTransfer interface {
	Sessions(ctx context.Context, scope memory.Scope, q ports.SessionQuery) ([]session.Meta, error)
	ExportSession(ctx context.Context, ref session.Ref) (session.State, error)
	ReplaceSession(ctx context.Context, st session.State, rev int64) error
}

// ManagerChains finds who manages a user (ports.OrgStore).
type ManagerChains interface {
	ManagerChain(ctx context.Context, tenant, user string) ([]string, error)
}

// MemoryLister pages through a user's memories (ports.MemoryStore).
type MemoryLister interface {
	List(ctx context.Context, scope memory.Scope, q ports.MemoryQuery) (ports.MemoryPage, error)
}

// ImportIndexer indexes what an import wrote (app/indexing's lexical indexer).
type ImportIndexer interface {
	IndexImported(ctx context.Context, memories []memory.Memory, messages []conversation.Message) error
}

// PortabilityDeps are what export and import need.
type PortabilityDeps struct {
	Records  ports.UserRecords
	Sessions SessionTransfer
	Managers ManagerChains
	Audit    ports.AuditLog
	Erasing  ErasingUsers
	Memories MemoryLister
	Messages ports.MessageLister
	Indexer  ImportIndexer
	Clock    ports.Clock
	IDs      ports.IDs
}

// Portability hands a user's data out and takes it back in.
type Portability struct{ deps PortabilityDeps }

// NewPortability builds the use cases.
func NewPortability(deps PortabilityDeps) *Portability { return &Portability{deps: deps} }

// authorize lets actor export or import scope's user as a profile read is let:
// the user themselves or a manager above them. Every call, allowed or refused, is
// written to the audit log first: a subject access request is itself a record.
func (p *Portability) authorize(ctx context.Context, scope memory.Scope, actor, action string) error {
	if err := memory.ValidateUserID("X-Acting-User", actor); err != nil {
		return err
	}
	chain, err := p.deps.Managers.ManagerChain(ctx, scope.Tenant, scope.User)
	if err != nil {
		return err
	}
	access := org.Decide(actor, scope.User, chain)
	ok := access.Relation == org.RelationSelf || access.Relation == org.RelationManager
	recorded := action
	if !ok {
		recorded += denied
	}
	if err := p.deps.Audit.AppendAudit(ctx, ports.AuditEntry{ID: p.deps.IDs.New(), Tenant: scope.Tenant,
		At: p.deps.Clock.Now(), Actor: actor, Action: recorded, TargetUser: scope.User}); err != nil {
		return err
	}
	if !ok {
		return fmt.Errorf("the data of %q may be exported or imported only by the user and the managers above them in the organisation graph; %q is neither: %w",
			scope.User, actor, ports.ErrForbidden)
	}
	return nil
}

// refuseErasing is an *ports.ErasingError when the user is being erased.
func (p *Portability) refuseErasing(ctx context.Context, scope memory.Scope) error {
	erasing, err := p.deps.Erasing.ErasingUsers(ctx, scope.Tenant, []string{scope.User})
	if err != nil {
		return err
	}
	if job := erasing[scope.User]; job != "" {
		return &ports.ErasingError{JobID: job}
	}
	return nil
}
