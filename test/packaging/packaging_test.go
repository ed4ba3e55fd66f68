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

// loadCompose loads a compose file of the repository against the Compose
// specification, with env as the shell's environment.
func loadCompose(t *testing.T, name, project string, env map[string]string) (*types.Project, error) {
	t.Helper()
	path := repoFile(t, name)
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return loader.LoadWithContext(context.Background(), types.ConfigDetails{
		WorkingDir:  filepath.Dir(path),
		ConfigFiles: []types.ConfigFile{{Filename: path, Content: data}},
		Environment: env,
	}, func(o *loader.Options) { o.SetProjectName(project, true) })
}

// TestComposeSplit_runsEachRoleMigratedOnceAndChecked: the split-role compose
// file runs two api processes, a worker, an indexer and a scheduler on
// PostgreSQL and Redis; one migrate service applies the migrations before any
// role starts, and no role migrates itself; each role's health check asks an
// address that role serves.
func TestComposeSplit_runsEachRoleMigratedOnceAndChecked(t *testing.T) {
	const file = "deploy/compose.split.yaml"
	env := map[string]string{"ENGRAM_API_KEYS": "acme=0123456789abcdef0123"}
	project, err := loadCompose(t, file, "engram-split", env)
	if err != nil {
		t.Fatalf("%s does not load against the Compose specification: %v", file, err)
	}
	services := map[string]types.ServiceConfig{}
	for _, s := range project.Services {
		services[s.Name] = s
	}
	roles := map[string]string{"api-1": "api", "api-2": "api", "worker": "worker", "indexer": "indexer", "scheduler": "scheduler"}
	for _, name := range []string{"api-1", "api-2", "worker", "indexer", "scheduler", "migrate", "postgres", "redis"} {
		if _, ok := services[name]; !ok {
			t.Fatalf("services %v: no %s", project.ServiceNames(), name)
		}
	}
	if !strings.HasPrefix(services["postgres"].Image, "pgvector/pgvector") {
		t.Errorf("postgres image %q, want pgvector's", services["postgres"].Image)
	}
	if !slices.Contains(services["redis"].Command, "--appendonly") {
		t.Errorf("redis runs without append-only persistence: %v", services["redis"].Command)
	}
	if got := services["migrate"].Command; !slices.Equal(got, types.ShellCommand{"migrate"}) {
		t.Errorf("migrate service runs %v, want engram migrate", got)
	}
	if d, ok := services["migrate"].DependsOn["postgres"]; !ok || d.Condition != types.ServiceConditionHealthy {
		t.Errorf("migrate does not wait for postgres: %+v", services["migrate"].DependsOn)
	}
	for _, s := range []string{"postgres", "redis"} {
		if hc := services[s].HealthCheck; hc == nil || len(hc.Test) == 0 {
			t.Errorf("service %s has no health check", s)
		}
	}

	hostPorts := map[string]bool{}
	for name, role := range roles {
		s := services[name]
		envOf := func(k string) string {
			if v := s.Environment[k]; v != nil {
				return *v
			}
			return ""
		}
		if want := (types.ShellCommand{"serve", "--roles", role}); !slices.Equal(s.Command, want) {
			t.Errorf("%s runs %v, want %v", name, s.Command, want)
		}
		if s.HealthCheck == nil || !slices.Contains(s.HealthCheck.Test, "healthcheck") {
			t.Errorf("%s: no health check running engram healthcheck", name)
		}
		// engram healthcheck asks ENGRAM_HTTP_ADDR with the api role, else
		// ENGRAM_METRICS_ADDR: the role must listen there.
		if role == "api" {
			if envOf("ENGRAM_HTTP_ADDR") != "0.0.0.0:8080" || envOf("ENGRAM_API_KEYS") != env["ENGRAM_API_KEYS"] {
				t.Errorf("%s: ENGRAM_HTTP_ADDR %q, ENGRAM_API_KEYS %q", name, envOf("ENGRAM_HTTP_ADDR"), envOf("ENGRAM_API_KEYS"))
			}
			for _, p := range s.Ports {
				if hostPorts[p.Published] {
					t.Errorf("%s publishes host port %s twice", name, p.Published)
				}
				hostPorts[p.Published] = true
			}
		} else if envOf("ENGRAM_METRICS_ADDR") == "" {
			t.Errorf("%s has no ENGRAM_METRICS_ADDR: its health check would find nothing to ask", name)
		}
		want := map[string]string{
			"ENGRAM_DATABASE_URL":          "postgres://engram:engram@postgres:5432/engram?sslmode=disable",
			"ENGRAM_DATABASE_AUTO_MIGRATE": "false",
			"ENGRAM_VECTOR_BACKEND":        "pgvector",
			"ENGRAM_REDIS_ADDR":            "redis:6379",
		}
		for k, v := range want {
			if got := envOf(k); got != v {
				t.Errorf("%s %s = %q, want %q", name, k, got, v)
			}
		}
		conditions := map[string]string{"postgres": types.ServiceConditionHealthy, "redis": types.ServiceConditionHealthy, "migrate": types.ServiceConditionCompletedSuccessfully}
		for dep, cond := range conditions {
			if d, ok := s.DependsOn[dep]; !ok || d.Condition != cond {
				t.Errorf("%s does not wait for %s (%s): %+v", name, dep, cond, s.DependsOn)
			}
		}
	}
	if len(hostPorts) != 2 {
		t.Errorf("the two api processes publish %d host ports, want 2", len(hostPorts))
	}

	if _, err := loadCompose(t, file, "engram-split", map[string]string{}); err == nil || !strings.Contains(err.Error(), "ENGRAM_API_KEYS") {
		t.Errorf("loading without ENGRAM_API_KEYS: err = %v, want it to name ENGRAM_API_KEYS", err)
	}
}
