// Package users holds the operator's view of what is stored (README "Erasure",
// "Conversations"): the tenant's users with how much each store
// holds of them, and one user's messages page by page. Users being erased do not
// appear. It depends on domain and ports only.
package users

import (
	"context"

	"engram/ports"
)

// Kinds every listing reports, whether or not a store of that kind is registered
// (0 when none is). Sessions are the user's live sessions, as their session
// listing shows them.
const (
	KindMemories = "memories"
	KindMessages = "messages"
	KindSessions = "sessions"
	KindProfile  = "profile"  // 1 when a profile is stored
	KindOrg      = "org"      // 1 when the org graph has an entry
	KindActivity = "activity" // activity events
)

// Source is one store's share of the users, under the kind it counts.
type Source struct {
	Kind     string
	Activity ports.UserActivity
}

// ErasingUsers finds the users of a list being erased (ports.ErasureStore).
type ErasingUsers interface {
	ErasingUsers(ctx context.Context, tenant string, users []string) (map[string]string, error)
}

// Page sizes of both listings.
const (
	DefaultLimit = 100
	MaxLimit     = 1000
)

// Service runs the listings.
type Service struct {
	sources  []Source
	erasing  ErasingUsers
	messages ports.MessageLister
}

// New builds the service over the registered sources.
func New(sources []Source, erasing ErasingUsers, messages ports.MessageLister) *Service {
	return &Service{sources: sources, erasing: erasing, messages: messages}
}
