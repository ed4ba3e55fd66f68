package profiles_test

import (
	"context"
	"errors"
	"testing"

	"engram/app/profiles"
	"engram/domain/profile"
	"engram/ports"
)

// A patch that names no field is refused before anything is read or written: no
// profile is made of it.
func TestPatch_refusesAPatchThatNamesNoField(t *testing.T) {
	t.Parallel()
	f := newFixture(t, nil, profiles.Options{})
	ctx := context.Background()
	if _, err := f.svc.Patch(ctx, profiles.Patch{Scope: dev, Actor: "someone-else"}); !errors.Is(err, profile.ErrEmptyPatch) {
		t.Fatalf("empty patch: %v, want profile.ErrEmptyPatch", err)
	}
	if _, err := f.profiles.Profile(ctx, dev); !errors.Is(err, ports.ErrNotFound) {
		t.Errorf("an empty patch made a profile: %v", err)
	}
}
