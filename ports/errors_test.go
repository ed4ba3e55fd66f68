package ports

import (
	"errors"
	"fmt"
	"testing"
)

func TestNotFound_namesTheObjectAndIsErrNotFound(t *testing.T) {
	t.Parallel()
	err := fmt.Errorf("get: %w", NotFound("memory", "diet"))
	var nf *NotFoundError
	if !errors.Is(err, ErrNotFound) || !errors.As(err, &nf) || nf.Error() != `memory "diet" not found` {
		t.Errorf("NotFound: %v", err)
	}
	if errors.Is(NotFound("job", "j"), ErrConflict) {
		t.Error("a NotFound is a conflict")
	}
}

func TestNameNotFound_namesOnlyUnnamedNotFounds(t *testing.T) {
	t.Parallel()
	layered := fmt.Errorf("sqlstore: get message: %w", ErrNotFound)
	if got := NameNotFound(layered, "message", "m1"); got.Error() != `message "m1" not found` || !errors.Is(got, ErrNotFound) {
		t.Errorf("a store's not-found: %v", got)
	}
	named := NotFound("memory", "diet")
	if got := NameNotFound(fmt.Errorf("x: %w", named), "event", "e"); !errors.Is(got, named) {
		t.Errorf("an already named not-found was renamed: %v", got)
	}
	other := fmt.Errorf("sqlstore: %w", ErrUnavailable)
	if got := NameNotFound(other, "message", "m1"); got != other {
		t.Errorf("another error was changed: %v", got)
	}
	if NameNotFound(nil, "message", "m1") != nil {
		t.Error("nil became an error")
	}
}
