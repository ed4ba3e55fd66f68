package bootstrap

import (
	"errors"
	"strings"
	"testing"

	"go.uber.org/fx"
)

func TestStartupError_isTheRootCauseWithoutFxsTrace(t *testing.T) {
	t.Parallel()
	type dep struct{}
	app := fx.New(
		fx.NopLogger,
		fx.Provide(func() (*dep, error) {
			return nil, errors.New("ENGRAM_X: cannot reach it (connection refused); start it")
		}),
		fx.Invoke(func(*dep) {}),
	)
	if app.Err() == nil {
		t.Fatal("the app built")
	}
	if !strings.Contains(app.Err().Error(), ".go:") {
		t.Logf("fx's error no longer names Go files: %v", app.Err())
	}
	got := startupError(app.Err()).Error()
	if got != "ENGRAM_X: cannot reach it (connection refused); start it" {
		t.Errorf("startupError = %q", got)
	}
	if joined := startupError(errors.Join(errors.New("A: bad"), errors.New("B: worse"))).Error(); joined != "A: bad; B: worse" {
		t.Errorf("a joined error = %q, want one line", joined)
	}
}

func TestReadBuildInfo_linkerVersionWins(t *testing.T) {
	// Not parallel: it sets the package's link-time variable.
	old := version
	t.Cleanup(func() { version = old })
	version = "v9.9.9"
	if info := readBuildInfo(); info.Version != "v9.9.9" || !strings.HasPrefix(info.String(), "engram v9.9.9") {
		t.Errorf("with -X version: %+v %q", info, info.String())
	}
	version = ""
	if info := readBuildInfo(); info.Version == "" {
		t.Error("without -X the version is empty; want the module version or devel")
	}
}

func TestPostgresLocation_neverShowsCredentials(t *testing.T) {
	t.Parallel()
	for url, want := range map[string]string{
		"postgres://engram:s3cret@db.internal:6543/engram?sslmode=require": "db.internal:6543/engram",
		"postgresql://u@10.0.0.5/mem":                                      "10.0.0.5:5432/mem",
	} {
		if got := postgresLocation(url); got != want {
			t.Errorf("postgresLocation(%q) = %q, want %q", url, got, want)
		}
	}
}
