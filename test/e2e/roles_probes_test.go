package e2e

import (
	"encoding/json"
	"net"
	"net/http"
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"

	"engram/test/logbuf"
	"engram/test/testenv"
	"engram/test/wait"
)

// startRole runs `engram serve --roles roles` with its probes on a metrics
// address of its own, and waits until /readyz there answers 200.
func startRole(t *testing.T, roles string, env ...string) (metricsBase string) {
	t.Helper()
	metricsAddr := freeAddr(t)
	cmd := exec.Command(binary, "serve", "--roles", roles)
	cmd.Env = append(os.Environ(), append([]string{
		"ENGRAM_DATA_DIR=" + t.TempDir(),
		"ENGRAM_HTTP_ADDR=" + freeAddr(t), // not served: the api role is not here
		"ENGRAM_METRICS_ADDR=" + metricsAddr,
	}, env...)...)
	logs := &logbuf.Buffer{}
	cmd.Stdout, cmd.Stderr = logs, logs
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		_ = cmd.Process.Kill()
		_ = cmd.Wait()
		if t.Failed() {
			t.Logf("%s logs:\n%s", roles, logs.String())
		}
	})
	base := "http://" + metricsAddr
	wait.Until(t, 30*time.Second, roles+" /readyz answering 200 on ENGRAM_METRICS_ADDR", func() bool {
		resp, err := http.Get(base + "/readyz")
		if err != nil {
			return false
		}
		_ = resp.Body.Close()
		return resp.StatusCode == http.StatusOK
	})
	return base
}

func getJSON(t *testing.T, url string, out any) int {
	t.Helper()
	resp, err := http.Get(url)
	if err != nil {
		t.Fatalf("GET %s: %v", url, err)
	}
	defer resp.Body.Close()
	if ct := resp.Header.Get("Content-Type"); !strings.HasPrefix(ct, "application/json") {
		t.Errorf("GET %s: Content-Type %q", url, ct)
	}
	if err := json.NewDecoder(resp.Body).Decode(out); err != nil {
		t.Fatalf("GET %s: decode: %v", url, err)
	}
	return resp.StatusCode
}

// TestHealthcheck_nonAPIRolesAnswerOnTheirMetricsAddress: a worker, indexer or
// scheduler alone serves /healthz (with the version) and /readyz on
// ENGRAM_METRICS_ADDR, and `engram healthcheck` with that process's settings
// asks there, so a container health check passes for every role.
func TestHealthcheck_nonAPIRolesAnswerOnTheirMetricsAddress(t *testing.T) {
	version := strings.Fields(cli(t, nil, "version"))[1]
	for _, roles := range []string{"worker", "indexer", "scheduler", "worker,indexer"} {
		t.Run(roles, func(t *testing.T) {
			checkRoleProbes(t, roles, version, "disabled")
		})
	}
}

// TestHealthcheck_nonAPIRolesAnswerOnTheirMetricsAddress_Postgres: the same on
// PostgreSQL with Redis; the roles that read sessions report Redis (up, or
// degraded when the server does not persist what it acknowledges).
func TestHealthcheck_nonAPIRolesAnswerOnTheirMetricsAddress_Postgres(t *testing.T) {
	version := strings.Fields(cli(t, nil, "version"))[1]
	redis := testenv.RedisAddr(t)
	for roles, wantRedis := range map[string]string{"worker": "reported", "indexer": "disabled", "scheduler": "reported"} {
		t.Run(roles, func(t *testing.T) {
			checkRoleProbes(t, roles, version, wantRedis,
				"ENGRAM_DATABASE_URL="+testenv.NewPostgresDatabase(t), "ENGRAM_REDIS_ADDR="+redis)
		})
	}
}

func checkRoleProbes(t *testing.T, roles, version, wantRedis string, env ...string) {
	base := startRole(t, roles, env...)
	metricsAddr := strings.TrimPrefix(base, "http://")

	var health struct{ Status, Version string }
	if code := getJSON(t, base+"/healthz", &health); code != http.StatusOK || health.Status != "ok" || health.Version != version {
		t.Errorf("/healthz = %d %+v, want ok with version %q", code, health, version)
	}
	var ready struct {
		Status, SQL, Redis string
		Details            map[string]string
	}
	code := getJSON(t, base+"/readyz", &ready)
	redisOK := ready.Redis == wantRedis
	if wantRedis == "reported" {
		redisOK = ready.Redis == "up" || ready.Redis == "degraded"
	}
	if code != http.StatusOK || ready.SQL != "up" || !redisOK {
		t.Errorf("/readyz = %d %+v, want 200 with sql up, redis %s", code, ready, wantRedis)
	}
	resp, err := http.Get(base + "/metrics")
	if err != nil || resp.StatusCode != http.StatusOK {
		t.Fatalf("/metrics: %v %v", resp, err)
	}
	_ = resp.Body.Close()

	// The container's environment: the roles and the metrics address, nothing
	// else; ENGRAM_HTTP_ADDR points where nobody listens.
	unused := freeAddr(t)
	roleEnv := []string{"ENGRAM_ROLES=" + roles, "ENGRAM_METRICS_ADDR=" + metricsAddr, "ENGRAM_HTTP_ADDR=" + unused}
	if out := cli(t, roleEnv, "healthcheck"); strings.TrimSpace(out) != "ok "+version {
		t.Errorf("engram healthcheck said %q", out)
	}
	// Listening on every address, it asks on loopback.
	_, port, _ := net.SplitHostPort(metricsAddr)
	roleEnv[1] = "ENGRAM_METRICS_ADDR=0.0.0.0:" + port
	if out := cli(t, roleEnv, "healthcheck"); strings.TrimSpace(out) != "ok "+version {
		t.Errorf("engram healthcheck on 0.0.0.0 said %q", out)
	}
	// With the api role it asks the API's address, where nobody listens here.
	apiEnv := []string{"ENGRAM_ROLES=api," + roles, "ENGRAM_METRICS_ADDR=" + metricsAddr, "ENGRAM_HTTP_ADDR=" + unused}
	cmd := exec.Command(binary, "healthcheck")
	cmd.Env = append(os.Environ(), apiEnv...)
	if out, err := cmd.CombinedOutput(); err == nil || !strings.Contains(string(out), unused) {
		t.Errorf("healthcheck with the api role and nothing on ENGRAM_HTTP_ADDR: %v %s", err, out)
	}
}

// TestHealthcheck_nonAPIRoleWithoutMetricsAddressSaysWhatToSet: a worker without
// ENGRAM_METRICS_ADDR serves no HTTP; the health check says so rather than
// probing the API's address.
func TestHealthcheck_nonAPIRoleWithoutMetricsAddressSaysWhatToSet(t *testing.T) {
	cmd := exec.Command(binary, "healthcheck")
	cmd.Env = append(os.Environ(), "ENGRAM_ROLES=worker", "ENGRAM_METRICS_ADDR=")
	out, err := cmd.CombinedOutput()
	if err == nil {
		t.Fatalf("healthcheck succeeded: %s", out)
	}
	if want := "roles worker serve no HTTP; set ENGRAM_METRICS_ADDR"; !strings.Contains(string(out), want) {
		t.Errorf("output %q does not say %q", out, want)
	}
}
