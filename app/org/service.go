// Package org holds the use cases of the organisation graph: put a user's
// place in the organisation (mirrored into their profile), read it with the chain
// of managers above, list the tenant's members, and resolve a name ("小明",
// "Xiao Ming", a nickname) to users of the tenant, so a manager's agent knows whom
// "assign Xiao Ming a task" means. A user being erased is in none of
// these answers and cannot be put. It depends on domain and ports only.
package org

import (
	"context"

	"engram/domain/org"
	"engram/ports"
)

// Erasures says who is being erased (ports.ErasureStore). From DELETE
// /v1/users/{user} until the purge is done the user's org entry reads as absent,
// as it will be after the purge: they are left out of listings and name
// lookups, a reference to them as a manager reads as none (the purge detaches
// their reports), and their entry cannot be written.
type Erasures interface {
	ports.ErasureGuard
	ErasingUsers(ctx context.Context, tenant string, users []string) (map[string]string, error)
}

// Deps are what the use cases call.
type Deps struct {
	Graph     ports.OrgStore
	Profiles  ports.ProfileStore
	Romanizer ports.NameRomanizer // nil: names are found without their pinyin
	Clock     ports.Clock
	Erasures  Erasures // nil: no erasures
}

// Service runs the organisation use cases.
type Service struct {
	graph     ports.OrgStore
	profiles  ports.ProfileStore
	romanizer ports.NameRomanizer
	clock     ports.Clock
	erasures  Erasures
}

// New builds the service.
func New(d Deps) *Service {
	return &Service{graph: d.Graph, profiles: d.Profiles, romanizer: d.Romanizer, clock: d.Clock, erasures: d.Erasures}
}

func (s *Service) syllable() org.Syllable {
	if s.romanizer == nil {
		return nil
	}
	return s.romanizer.Syllable
}
