// Package org holds the use cases of the organisation graph (F8): put a user's
// place in the organisation (mirrored into their profile), read it with the chain
// of managers above, list the tenant's members, and resolve a name ("小明",
// "Xiao Ming", a nickname) to users of the tenant, so a manager's agent knows whom
// "assign Xiao Ming a task" means. It depends on domain and ports only.
package org

import (
	"engram/domain/org"
	"engram/ports"
)

// Service runs the organisation use cases.
type Service struct {
	graph     ports.OrgStore
	profiles  ports.ProfileStore
	romanizer ports.NameRomanizer // nil: names are found without their pinyin
	clock     ports.Clock
}

// New builds the service.
func New(graph ports.OrgStore, profiles ports.ProfileStore, romanizer ports.NameRomanizer, clock ports.Clock) *Service {
	return &Service{graph: graph, profiles: profiles, romanizer: romanizer, clock: clock}
}

func (s *Service) syllable() org.Syllable {
	if s.romanizer == nil {
		return nil
	}
	return s.romanizer.Syllable
}
