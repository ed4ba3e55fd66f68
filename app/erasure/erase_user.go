package erasure

import (
	"context"

	"engram/domain/erasure"
	"engram/domain/memory"
	"engram/ports"
)

// EraseUser is DELETE /v1/users/{user}.
type EraseUser struct {
	Scope memory.Scope
	Actor string // the X-Acting-User of the request; empty: erasure.DefaultActor
}

// Erasure is the job that erases a user; Created is false when an erasure of the
// user was already open (a repeated DELETE gets the same job).
type Erasure struct {
	Job     ports.Job
	Created bool
}

// EraseUser opens the user's erasure. When it returns, the user's reads find
// nothing and writes are refused; a worker then purges every registered store.
func (s *Service) EraseUser(ctx context.Context, cmd EraseUser) (Erasure, error) {
	actor, err := erasure.ParseActor(cmd.Actor)
	if err != nil {
		return Erasure{}, err
	}
	job, created, err := s.deps.Erasures.BeginErasure(ctx, ports.Job{
		ID: s.deps.IDs.New(), Scope: cmd.Scope, Kind: ports.JobEraseUser, CreatedAt: s.deps.Clock.Now(), RequestedBy: actor,
	})
	if err != nil {
		return Erasure{}, err
	}
	return Erasure{Job: job, Created: created}, nil
}
