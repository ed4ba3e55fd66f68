package e2e

import (
	"encoding/json"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// goPath matches a Go source location such as "bootstrap/core.go:45".
var goPath = regexp.MustCompile(`\.go:\d+`)

// failStart runs `engram serve` expecting it to fail at start-up, and returns
// its output.
func failStart(t *testing.T, env ...string) string {
	t.Helper()
	cmd := exec.Command(binary, "serve")
	cmd.Env = append(os.Environ(), env...)
	out, err := cmd.CombinedOutput()
	if err == nil {
		t.Fatalf("engram started:\n%s", out)
	}
	if code := cmd.ProcessState.ExitCode(); code != 1 {
		t.Errorf("exit code %d, want 1", code)
	}
	return string(out)
}

// TestServe_startupFailuresEndInOneLineWithTheCause: whatever stops start-up,
// the last line names the setting, the root cause and what to do, and nothing
// printed is a dependency-injection trace or a Go file path.
func TestServe_startupFailuresEndInOneLineWithTheCause(t *testing.T) {
	taken, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer taken.Close()
	takenAddr := taken.Addr().String()
	tests := []struct {
		name string
		env  []string
		want string
	}{
		{"database unreachable",
			[]string{"ENGRAM_DATABASE_URL=postgres://engram:s3cret@127.0.0.1:1/engram?sslmode=disable"},
			"engram: ENGRAM_DATABASE_URL: cannot reach PostgreSQL at 127.0.0.1:1/engram (connection refused); start it or fix the URL"},
		{"open mode off loopback",
			[]string{"ENGRAM_HTTP_ADDR=0.0.0.0:0", "ENGRAM_API_KEYS="},
			"engram: ENGRAM_HTTP_ADDR: refusing to listen on 0.0.0.0:0 without API keys; set ENGRAM_API_KEYS or run `engram keys create --tenant T`, or listen on 127.0.0.1"},
		{"port taken",
			[]string{"ENGRAM_HTTP_ADDR=" + takenAddr},
			"engram: ENGRAM_HTTP_ADDR: " + takenAddr + " is already in use (address already in use); stop the other process or set ENGRAM_HTTP_ADDR to a free port"},
		{"invalid setting",
			[]string{"LONG_TERM_MEMORY_MIN_CONFIDENCE=7"},
			"engram: LONG_TERM_MEMORY_MIN_CONFIDENCE: must be between 0 and 1, got 7"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			out := failStart(t, append([]string{"ENGRAM_DATA_DIR=" + t.TempDir()}, tt.env...)...)
			if got := lastLine(out); got != tt.want {
				t.Errorf("last line:\n got %q\nwant %q", got, tt.want)
			}
			if goPath.MatchString(out) || strings.Contains(out, "fx.") || strings.Contains(out, "s3cret") {
				t.Errorf("the output has a trace, a Go path or a password:\n%s", out)
			}
		})
	}
}

// TestServe_saysWhatItDoesAtStartAndStop: one line per fact when it starts,
// clean lines when it stops, in JSON when asked, and the version everywhere.
func TestServe_saysWhatItDoesAtStartAndStop(t *testing.T) {
	dataDir := t.TempDir()
	srv := Start(t, "ENGRAM_DATA_DIR="+dataDir, "ENGRAM_LOG_FORMAT=json")
	var health struct{ Status, Version string }
	if code := srv.Do(http.MethodGet, "/healthz", nil, &health); code != http.StatusOK || health.Status != "ok" {
		t.Fatalf("healthz = %d %+v", code, health)
	}
	version := strings.TrimSpace(cli(t, nil, "version"))
	if health.Version == "" || !strings.HasPrefix(version, "engram "+health.Version) {
		t.Errorf("engram version says %q, /healthz says %q", version, health.Version)
	}
	addr := "ENGRAM_HTTP_ADDR=" + strings.TrimPrefix(srv.Base, "http://")
	if out := cli(t, []string{addr}, "healthcheck"); strings.TrimSpace(out) != "ok "+health.Version {
		t.Errorf("engram healthcheck said %q", out)
	}
	srv.Stop()
	if err := exec.Command(binary, "healthcheck", "--url", srv.Base+"/healthz").Run(); err == nil {
		t.Error("engram healthcheck succeeded against a stopped server")
	}

	facts := map[string]map[string]any{}
	for _, line := range strings.Split(strings.TrimSpace(srv.logs.String()), "\n") {
		var rec map[string]any
		if err := json.Unmarshal([]byte(line), &rec); err != nil {
			t.Fatalf("ENGRAM_LOG_FORMAT=json, yet a line is not JSON: %q", line)
		}
		if msg, _ := rec["msg"].(string); rec["level"] == "INFO" || rec["level"] == "WARN" {
			facts[msg] = rec
		}
	}
	want := map[string]map[string]any{
		"engram starting": {"version": health.Version, "roles": "api,worker,indexer,scheduler"},
		"listening":       {"url": srv.Base},
		"API reference":   {"url": srv.Base + "/docs"},
		"data":            {"sqlite": filepath.Join(dataDir, "engram.db")},
		"vector backend":  {"backend": "local"},
		"embedder":        {"provider": "local"},
		"extractor":       {"provider": "rules"},
		"engram started":  {},
		"engram stopping": {"signal": "terminated"},
		"engram stopped":  {},
	}
	for msg, attrs := range want {
		rec, ok := facts[msg]
		if !ok {
			t.Errorf("no %q line", msg)
			continue
		}
		for k, v := range attrs {
			if rec[k] != v {
				t.Errorf("%q: %s = %v, want %v", msg, k, rec[k], v)
			}
		}
	}
	if !strings.Contains(srv.logs.String(), "auth: open mode") {
		t.Error("the auth mode is not logged")
	}
}
