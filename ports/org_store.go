package ports

import (
	"context"

	"engram/domain/memory"
	"engram/domain/org"
)

// Name key sources: a user's keys come from their org entry and from their profile
// (display name, nickname, preferred name); each source's keys are replaced whole.
const (
	NameSourceOrg     = "org"
	NameSourceProfile = "profile"
)

// OrgStore keeps each tenant's organisation graph and the name keys that name
// resolution looks people up by.
type OrgStore interface {
	// PutMember stores m (insert or replace) and its name keys, source
	// NameSourceOrg, in one transaction. In that transaction, serialised with
	// every other PutMember of the tenant, it follows the new manager's chain and
	// refuses a manager that would close a cycle with org.CheckManager's error, so
	// two concurrent writes cannot build a cycle between them. A replace keeps
	// CreatedAt. created reports an insert.
	PutMember(ctx context.Context, tenant string, m org.Member, keys []org.NameKey) (stored org.Member, created bool, err error)

	// Member returns one member. ErrNotFound if the user has no org entry.
	Member(ctx context.Context, tenant, user string) (org.Member, error)

	// MembersOf returns the org entries of these users, by user id; users without
	// one are absent.
	MembersOf(ctx context.Context, tenant string, users []string) (map[string]org.Member, error)

	// ListMembers returns up to limit members with user ids after afterUser, in
	// user id order.
	ListMembers(ctx context.Context, tenant, afterUser string, limit int) ([]org.Member, error)

	// ManagerChain returns the managers above user, direct manager first, at most
	// org.MaxChainDepth of them; empty when the user has no org entry or manager.
	ManagerChain(ctx context.Context, tenant, user string) ([]string, error)

	// SetNameKeys replaces the user's name keys of one source.
	SetNameKeys(ctx context.Context, scope memory.Scope, source string, keys []org.NameKey) error

	// FindByNameKeys returns the stored keys equal to any of keys, of users of the
	// tenant: each user's key once with its strongest strength, strongest first
	// (then by user and key), for at most limit users (those with the strongest
	// keys).
	FindByNameKeys(ctx context.Context, tenant string, keys []string, limit int) ([]org.KeyHit, error)
}
