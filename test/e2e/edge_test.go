package e2e

import (
	"encoding/json"
	"net/http"
	"strings"
	"testing"
)

// accessLines are the access-log records of a stopped server's JSON log.
func accessLines(t *testing.T, s *Server) []map[string]any {
	t.Helper()
	var out []map[string]any
	for _, line := range strings.Split(s.logs.String(), "\n") {
		var rec map[string]any
		if json.Unmarshal([]byte(line), &rec) == nil && rec["msg"] == "http request" {
			out = append(out, rec)
		}
	}
	return out
}

// The server logs one line per request at ENGRAM_LOG_FORMAT, with the request id a
// client sent, the route pattern and the tenant; ENGRAM_LOG_LEVEL=warn keeps them out.
func TestServe_accessLogFollowsTheLogSettings(t *testing.T) {
	srv := Start(t, "ENGRAM_DATA_DIR="+t.TempDir(), "ENGRAM_LOG_FORMAT=json")
	if code := srv.Do(http.MethodPut, "/v1/users/alice/memories/diet", map[string]any{"type": "fact", "content": "vegetarian"},
		nil, "X-Request-ID", "e2e-req-1"); code != http.StatusCreated {
		t.Fatalf("save: %d", code)
	}
	srv.Stop() // the log is complete once the process has exited
	var mine map[string]any
	for _, rec := range accessLines(t, srv) {
		if rec["request_id"] == "e2e-req-1" {
			mine = rec
		}
	}
	if mine == nil || mine["route"] != "/v1/users/{user}/memories/{key}" || mine["status"] != float64(201) ||
		mine["tenant"] != "default" || mine["method"] != "PUT" || mine["level"] != "INFO" {
		t.Errorf("access line of the save: %v\nlog:\n%s", mine, srv.logs.String())
	}

	quiet := Start(t, "ENGRAM_DATA_DIR="+t.TempDir(), "ENGRAM_LOG_FORMAT=json", "ENGRAM_LOG_LEVEL=warn")
	quiet.Do(http.MethodGet, "/v1/users/alice/memories", nil, nil)
	quiet.Stop()
	if lines := accessLines(t, quiet); len(lines) != 0 {
		t.Errorf("ENGRAM_LOG_LEVEL=warn still logged %d access lines: %v", len(lines), lines)
	}
}
