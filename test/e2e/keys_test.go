package e2e

import (
	"bytes"
	"engram/test/wait"
	"net/http"
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"
)

// cli runs an engram command with the given environment and returns its stdout;
// a failure fails the test with stderr.
func cli(t *testing.T, env []string, args ...string) string {
	t.Helper()
	cmd := exec.Command(binary, args...)
	cmd.Env = append(os.Environ(), env...)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		t.Fatalf("engram %s: %v\n%s", strings.Join(args, " "), err, stderr.String())
	}
	return stdout.String()
}

// TestKeys_createListRevokeOnARunningServer: a server in open mode picks up a
// key created with the command line within seconds (and leaves open mode,
// saying so), `keys list` shows it with its last use and never the secret, and
// once revoked the key gets 401 within seconds.
func TestKeys_createListRevokeOnARunningServer(t *testing.T) {
	env := []string{"ENGRAM_DATA_DIR=" + t.TempDir()} // the default ENGRAM_AUTH_CACHE_TTL_SEC (5)
	srv := Start(t, env...)
	if code := srv.Do(http.MethodGet, "/v1/users/alice/memories", nil, nil); code != http.StatusOK {
		t.Fatalf("open mode: %d", code)
	}

	secret := strings.TrimSpace(cli(t, env, "keys", "create", "--tenant", "acme"))
	bearer := []string{"Authorization", "Bearer " + secret}
	wait.Until(t, 10*time.Second, "the created key authenticates", func() bool {
		return srv.Do(http.MethodGet, "/v1/users/alice/memories", nil, nil, bearer...) == http.StatusOK &&
			srv.Do(http.MethodGet, "/v1/users/alice/memories", nil, nil) == http.StatusUnauthorized
	})
	if !strings.Contains(srv.logs.String(), "open mode ended") {
		t.Errorf("leaving open mode is not logged:\n%s", srv.logs.String())
	}

	list := cli(t, env, "keys", "list")
	lines := strings.Split(strings.TrimSpace(list), "\n")
	if len(lines) != 2 || strings.Join(strings.Fields(lines[0]), " ") != "ID TENANT USER CREATED LAST USED" {
		t.Fatalf("keys list:\n%s", list)
	}
	fields := strings.Fields(lines[1])
	if len(fields) != 5 || fields[1] != "acme" || fields[2] != "*" || fields[4] == "never" {
		t.Errorf("the key's line %q: want id, acme, * (every user), created, a last use", lines[1])
	}
	if _, err := time.Parse(time.RFC3339, fields[3]); err != nil {
		t.Errorf("created %q is not RFC 3339", fields[3])
	}
	if strings.Contains(list, secret) || strings.Contains(list, secret[len("engram_"):len("engram_")+8]) {
		t.Error("keys list shows the secret")
	}

	out := cli(t, env, "keys", "revoke", fields[0])
	if !strings.Contains(out, "revoked API key "+fields[0]+" of tenant acme") {
		t.Errorf("keys revoke said %q", out)
	}
	wait.Until(t, 10*time.Second, "the revoked key is refused", func() bool {
		return srv.Do(http.MethodGet, "/v1/users/alice/memories", nil, nil, bearer...) == http.StatusUnauthorized
	})
	if again := cli(t, env, "keys", "revoke", fields[0]); !strings.Contains(again, "already revoked") {
		t.Errorf("second revoke said %q", again)
	}
	if all := cli(t, env, "keys", "list", "--all"); !strings.Contains(all, "REVOKED") || !strings.Contains(all, fields[0]) {
		t.Errorf("keys list --all:\n%s", all)
	}
	if after := cli(t, env, "keys", "list"); strings.Contains(after, fields[0]) {
		t.Errorf("a revoked key is listed as active:\n%s", after)
	}
	srv.Stop()
}

func TestKeysRevoke_unknownIDSaysWhatToDo(t *testing.T) {
	cmd := exec.Command(binary, "keys", "revoke", "01NOSUCHKEY")
	cmd.Env = append(os.Environ(), "ENGRAM_DATA_DIR="+t.TempDir())
	out, err := cmd.CombinedOutput()
	if err == nil {
		t.Fatalf("revoking an unknown key succeeded:\n%s", out)
	}
	want := "engram: keys revoke: no stored API key has id \"01NOSUCHKEY\"; `engram keys list` shows the ids"
	if got := lastLine(string(out)); got != want {
		t.Errorf("last line %q, want %q", got, want)
	}
}

func lastLine(s string) string {
	lines := strings.Split(strings.TrimRight(s, "\n"), "\n")
	return lines[len(lines)-1]
}
