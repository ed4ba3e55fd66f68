package ports

import (
	"context"

	"engram/domain/memory"
	"engram/domain/profile"
)

// ProfileStore keeps user profiles.
//
// The adapter owns the transaction: UpdateProfile loads the current profile, lets
// the caller decide, and stores the result, so a PATCH and the worker's derivation
// of the same profile never lose each other's change.
type ProfileStore interface {
	// Profile returns the user's profile. ErrNotFound if none is stored.
	Profile(ctx context.Context, scope memory.Scope) (profile.Profile, error)

	// ProfilesOf returns the stored profiles of these users of the tenant, by user
	// id; users without one are absent.
	ProfilesOf(ctx context.Context, tenant string, users []string) (map[string]profile.Profile, error)

	// UpdateProfile runs fn with the current profile (nil when none is stored)
	// inside one transaction and stores what fn returns, which must have a higher
	// version than the stored one (a domain change advances it). If fn returns an
	// error nothing is written and the error is returned as it is (ErrNoChange
	// included).
	UpdateProfile(ctx context.Context, scope memory.Scope,
		fn func(current *profile.Profile) (profile.Profile, error)) (profile.Profile, error)
}
