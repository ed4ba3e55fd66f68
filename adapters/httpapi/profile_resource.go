package httpapi

import (
	"context"

	"engram/app/profiles"
	"engram/domain/memory"
)

// ProfileReader is what the profile resource needs.
type ProfileReader interface {
	Get(ctx context.Context, q profiles.Get) (profiles.View, error)
}

// OwnProfile reads a user's profile as GET /v1/users/{user}/profile answers the
// user themselves (no manager read, so nothing to audit): the MCP profile
// resource, whose connection holds the tenant's key like the memories resource.
func OwnProfile(svc ProfileReader) func(ctx context.Context, tenant, user string) (any, error) {
	return func(ctx context.Context, tenant, user string) (any, error) {
		sc, err := memory.ParseScope(tenant, user)
		if err != nil {
			return nil, err
		}
		v, err := svc.Get(ctx, profiles.Get{Scope: sc, Actor: user})
		if err != nil {
			return nil, err
		}
		return fromProfile(v.Profile, v.Access), nil
	}
}
