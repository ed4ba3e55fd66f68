package e2e

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"engram/test/engramproc"
	"engram/test/logbuf"
)

// binary is built once per test run.
var binary string

func TestMain(m *testing.M) {
	dir, err := os.MkdirTemp("", "engram-e2e-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	if binary, err = engramproc.Build(dir); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	code := m.Run()
	_ = os.RemoveAll(dir)
	os.Exit(code)
}

// Server is a running engram process.
type Server struct {
	t    *testing.T
	proc *engramproc.Process
	Base string
	logs *logbuf.Buffer
}

// Logs is what the process has written so far.
func (s *Server) Logs() string { return s.logs.String() }

func freeAddr(t *testing.T) string {
	t.Helper()
	addr, err := engramproc.FreeAddr()
	if err != nil {
		t.Fatal(err)
	}
	return addr
}

// Start runs `engram serve` with the given environment and waits until /readyz says
// the truth store is up.
func Start(t *testing.T, env ...string) *Server {
	t.Helper()
	p, err := engramproc.Start(binary, 30*time.Second, nil, env...)
	if err != nil {
		t.Fatal(err)
	}
	s := &Server{t: t, proc: p, Base: p.Base, logs: p.Logs}
	t.Cleanup(func() {
		p.Kill()
		if t.Failed() {
			t.Logf("server logs:\n%s", s.logs.String())
		}
	})
	return s
}

// Stop sends SIGTERM and waits for a clean exit.
func (s *Server) Stop() {
	s.t.Helper()
	if err := s.proc.Stop(30 * time.Second); err != nil {
		s.t.Fatalf("engram after SIGTERM: %v; logs:\n%s", err, s.logs.String())
	}
}

// Do sends a JSON request and decodes a JSON answer into out (if not nil).
func (s *Server) Do(method, path string, body any, out any, headers ...string) int {
	s.t.Helper()
	var r io.Reader
	if body != nil {
		b, _ := json.Marshal(body)
		r = bytes.NewReader(b)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	req, _ := http.NewRequestWithContext(ctx, method, s.Base+path, r)
	req.Header.Set("Content-Type", "application/json")
	for i := 0; i+1 < len(headers); i += 2 {
		req.Header.Set(headers[i], headers[i+1])
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		s.t.Fatalf("%s %s: %v", method, path, err)
	}
	defer resp.Body.Close()
	data, _ := io.ReadAll(resp.Body)
	if out != nil && len(data) > 0 {
		if err := json.Unmarshal(data, out); err != nil {
			s.t.Fatalf("%s %s: decode %q: %v", method, path, data, err)
		}
	}
	return resp.StatusCode
}

func TestServe_dataSurvivesRestart(t *testing.T) {
	dataDir := t.TempDir()
	srv := Start(t, "ENGRAM_DATA_DIR="+dataDir)

	var saved map[string]any
	if code := srv.Do(http.MethodPut, "/v1/users/alice/memories/Diet", map[string]any{
		"type": "fact", "content": "Alice is vegetarian", "importance": 4,
	}, &saved); code != http.StatusCreated {
		t.Fatalf("save = %d %v", code, saved)
	}
	if code := srv.Do(http.MethodPost, "/v1/users/alice/memories/diet/append", map[string]any{"content": "and avoids eggs"}, nil); code != http.StatusOK {
		t.Fatalf("append = %d", code)
	}
	srv.Stop()

	srv = Start(t, "ENGRAM_DATA_DIR="+dataDir)
	var got struct {
		Key     string `json:"key"`
		Content string `json:"content"`
		Version int    `json:"version"`
	}
	if code := srv.Do(http.MethodGet, "/v1/users/alice/memories/diet", nil, &got); code != http.StatusOK {
		t.Fatalf("get after restart = %d", code)
	}
	if got.Key != "diet" || got.Content != "Alice is vegetarian\nand avoids eggs" || got.Version != 2 {
		t.Errorf("after restart: %+v", got)
	}
	var hist struct {
		Events []struct {
			Op string `json:"op"`
		} `json:"events"`
	}
	srv.Do(http.MethodGet, "/v1/users/alice/memories/diet/history", nil, &hist)
	if len(hist.Events) != 2 || hist.Events[0].Op != "ADD" || hist.Events[1].Op != "APPEND" {
		t.Errorf("history after restart: %+v", hist)
	}
	srv.Stop()
}

func TestServe_apiKeysScopeTenants(t *testing.T) {
	const acme, globex = "acme-key-0123456789abcdef", "globex-key-0123456789abcdef"
	srv := Start(t, "ENGRAM_DATA_DIR="+t.TempDir(), "ENGRAM_API_KEYS=acme="+acme+",globex="+globex)

	if code := srv.Do(http.MethodGet, "/v1/users/alice/memories", nil, nil); code != http.StatusUnauthorized {
		t.Errorf("no key: %d, want 401", code)
	}
	if code := srv.Do(http.MethodGet, "/v1/users/alice/memories", nil, nil, "Authorization", "Bearer wrong-key-0123456789"); code != http.StatusUnauthorized {
		t.Errorf("wrong key: %d, want 401", code)
	}
	if code := srv.Do(http.MethodPut, "/v1/users/alice/memories/city", map[string]any{"type": "fact", "content": "Lives in Wuhan"}, nil, "Authorization", "Bearer "+acme); code != http.StatusCreated {
		t.Fatalf("acme save: %d", code)
	}
	if code := srv.Do(http.MethodGet, "/v1/users/alice/memories/city", nil, nil, "Authorization", "Bearer "+globex); code != http.StatusNotFound {
		t.Errorf("globex reading acme's memory: %d, want 404", code)
	}
	if code := srv.Do(http.MethodGet, "/v1/users/alice/memories/city", nil, nil, "Authorization", "Bearer "+acme); code != http.StatusOK {
		t.Errorf("acme reading its memory: %d", code)
	}
	if code := srv.Do(http.MethodGet, "/healthz", nil, nil); code != http.StatusOK {
		t.Errorf("healthz needs no key: %d", code)
	}
	srv.Stop()
}

func TestServe_refusesOpenModeOffLoopback(t *testing.T) {
	cmd := exec.Command(binary, "serve")
	cmd.Env = append(os.Environ(), "ENGRAM_HTTP_ADDR=0.0.0.0:0", "ENGRAM_DATA_DIR="+t.TempDir(), "ENGRAM_API_KEYS=")
	out, err := cmd.CombinedOutput()
	if err == nil {
		t.Fatalf("engram started in open mode on 0.0.0.0:\n%s", out)
	}
	if !strings.Contains(string(out), "without API keys") {
		t.Errorf("the refusal does not say why:\n%s", out)
	}
}

func TestKeysCreate_storedKeyAuthenticates(t *testing.T) {
	dataDir := t.TempDir()
	cmd := exec.Command(binary, "keys", "create", "--tenant", "acme")
	cmd.Env = append(os.Environ(), "ENGRAM_DATA_DIR="+dataDir)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		t.Fatalf("keys create: %v\n%s", err, stderr.String())
	}
	key := strings.TrimSpace(stdout.String())
	if !strings.HasPrefix(key, "engram_") || len(key) < 40 {
		t.Fatalf("printed key %q", key)
	}
	db, _ := os.ReadFile(filepath.Join(dataDir, "engram.db"))
	if bytes.Contains(db, []byte(key)) {
		t.Error("the secret itself is stored in the database")
	}

	srv := Start(t, "ENGRAM_DATA_DIR="+dataDir)
	if code := srv.Do(http.MethodGet, "/v1/users/alice/memories", nil, nil); code != http.StatusUnauthorized {
		t.Errorf("a stored key exists, yet a request without one got %d", code)
	}
	if code := srv.Do(http.MethodGet, "/v1/users/alice/memories", nil, nil, "Authorization", "Bearer "+key); code != http.StatusOK {
		t.Errorf("the created key was refused: %d", code)
	}
	srv.Stop()
}

func TestConfig_printsMaskedSettings(t *testing.T) {
	cmd := exec.Command(binary, "config")
	cmd.Env = append(os.Environ(), "ENGRAM_API_KEYS=acme=topsecret-0123456789", "LLM_API_KEY=sk-hidden")
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("config: %v\n%s", err, out)
	}
	if strings.Contains(string(out), "topsecret") || strings.Contains(string(out), "sk-hidden") || !strings.Contains(string(out), "acme=****") {
		t.Errorf("config output:\n%s", out)
	}

	bad := exec.Command(binary, "config")
	bad.Env = append(os.Environ(), "LONG_TERM_MEMORY_MIN_CONFIDENCE=7")
	out, err = bad.CombinedOutput()
	if err == nil || !strings.Contains(string(out), "LONG_TERM_MEMORY_MIN_CONFIDENCE") {
		t.Errorf("invalid config: err=%v output:\n%s", err, out)
	}
}
