// Package packaging checks the container files at the repository root without a
// Docker engine (CI has none): the Dockerfile with BuildKit's own parser and
// instruction checks, compose.yaml with the Compose specification's loader and
// schema. They are parsed, never built or run.
//
// It is a module of its own so that BuildKit's and Compose's dependencies stay
// out of engram's go.mod; .ci/run runs it: (cd test/packaging && go test ./...).
package packaging

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/compose-spec/compose-go/v2/loader"
	"github.com/compose-spec/compose-go/v2/types"
	"github.com/moby/buildkit/frontend/dockerfile/instructions"
	"github.com/moby/buildkit/frontend/dockerfile/parser"
)

func repoFile(t *testing.T, name string) string {
	t.Helper()
	return filepath.Join("..", "..", name)
}

func TestDockerfile_parsesMultiStageStaticNonRootWithHealthcheck(t *testing.T) {
	f, err := os.Open(repoFile(t, "Dockerfile"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	ast, err := parser.Parse(f)
	if err != nil {
		t.Fatalf("parse: %v", err)
	}
	for _, w := range ast.Warnings {
		t.Errorf("parser warning: %s", w.Short)
	}
	stages, metaArgs, err := instructions.Parse(ast.AST, nil)
	if err != nil {
		t.Fatalf("instructions: %v", err)
	}
	if len(stages) < 2 || len(metaArgs) == 0 {
		t.Fatalf("%d stages, %d global ARGs: want a build stage and a runtime stage", len(stages), len(metaArgs))
	}
	var (
		static, copiesBinary, volume, healthcheck bool
		user, entrypoint                          string
	)
	for _, cmd := range stages[0].Commands {
		if run, ok := cmd.(*instructions.RunCommand); ok && strings.Contains(strings.Join(run.CmdLine, " "), "CGO_ENABLED=0 go build") {
			static = true
		}
	}
	final := stages[len(stages)-1]
	for _, cmd := range final.Commands {
		switch c := cmd.(type) {
		case *instructions.CopyCommand:
			copiesBinary = copiesBinary || c.From == stages[0].Name
		case *instructions.UserCommand:
			user = c.User
		case *instructions.VolumeCommand:
			volume = slices.Contains(c.Volumes, "/data")
		case *instructions.HealthCheckCommand:
			healthcheck = c.Health != nil && slices.Contains(c.Health.Test, "healthcheck")
		case *instructions.EntrypointCommand:
			entrypoint = strings.Join(c.CmdLine, " ")
		}
	}
	switch {
	case !static:
		t.Error("the build stage does not build a static binary (CGO_ENABLED=0 go build)")
	case !copiesBinary:
		t.Errorf("the runtime stage does not copy from the build stage %q", stages[0].Name)
	case user == "" || user == "root" || strings.HasPrefix(user, "0"):
		t.Errorf("the runtime stage runs as %q, want a non-root user", user)
	case !volume:
		t.Error("no /data volume")
	case !healthcheck:
		t.Error("no HEALTHCHECK running engram healthcheck")
	case !strings.HasSuffix(entrypoint, "engram"):
		t.Errorf("entrypoint %q", entrypoint)
	}
}

func TestCompose_loadsEngramWithPgvectorAndRedisWiredAndChecked(t *testing.T) {
	path := repoFile(t, "compose.yaml")
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	env := map[string]string{"ENGRAM_API_KEYS": "acme=0123456789abcdef0123"}
	project, err := loader.LoadWithContext(context.Background(), types.ConfigDetails{
		WorkingDir:  filepath.Dir(path),
		ConfigFiles: []types.ConfigFile{{Filename: path, Content: data}},
		Environment: env,
	}, func(o *loader.Options) { o.SetProjectName("engram", true) })
	if err != nil {
		t.Fatalf("compose.yaml does not load against the Compose specification: %v", err)
	}
	services := map[string]types.ServiceConfig{}
	for _, s := range project.Services {
		services[s.Name] = s
	}
	engram, pg, redis := services["engram"], services["postgres"], services["redis"]
	if engram.Name == "" || pg.Name == "" || redis.Name == "" {
		t.Fatalf("services %v: want engram, postgres and redis", project.ServiceNames())
	}
	if !strings.HasPrefix(pg.Image, "pgvector/pgvector") {
		t.Errorf("postgres image %q, want pgvector's", pg.Image)
	}
	for _, s := range []types.ServiceConfig{engram, pg, redis} {
		if s.HealthCheck == nil || len(s.HealthCheck.Test) == 0 {
			t.Errorf("service %s has no health check", s.Name)
		}
	}
	for _, dep := range []string{"postgres", "redis"} {
		if d, ok := engram.DependsOn[dep]; !ok || d.Condition != types.ServiceConditionHealthy {
			t.Errorf("engram does not wait for %s to be healthy: %+v", dep, engram.DependsOn)
		}
	}
	want := map[string]string{
		"ENGRAM_DATABASE_URL":   "postgres://engram:engram@postgres:5432/engram?sslmode=disable",
		"ENGRAM_VECTOR_BACKEND": "pgvector",
		"ENGRAM_REDIS_ADDR":     "redis:6379",
		"ENGRAM_API_KEYS":       env["ENGRAM_API_KEYS"],
	}
	for k, v := range want {
		if got := engram.Environment[k]; got == nil || *got != v {
			t.Errorf("engram %s = %v, want %q", k, got, v)
		}
	}

	// Without keys it must refuse to load: listening beyond loopback needs them.
	_, err = loader.LoadWithContext(context.Background(), types.ConfigDetails{
		WorkingDir:  filepath.Dir(path),
		ConfigFiles: []types.ConfigFile{{Filename: path, Content: data}},
		Environment: map[string]string{},
	}, func(o *loader.Options) { o.SetProjectName("engram", true) })
	if err == nil || !strings.Contains(err.Error(), "ENGRAM_API_KEYS") {
		t.Errorf("loading without ENGRAM_API_KEYS: err = %v, want it to name ENGRAM_API_KEYS", err)
	}
}
