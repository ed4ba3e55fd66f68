package bootstrap

import (
	"context"
	"encoding/json"
	"net/http"
	"slices"
	"testing"
	"time"

	"go.uber.org/fx"
	"go.uber.org/fx/fxtest"

	"engram/bootstrap/config"
	"engram/test/testenv"
	"engram/test/wait"
)

// sessionReads are what a client reads of alice's session s1: the exchange ids of
// the user turns the listing's count, the session and the context call each show.
type sessionReads struct {
	listed  int      // message_count of s1 in GET /v1/users/alice/sessions
	session []string // GET /v1/users/alice/sessions/s1
	context []string // sections.recent_messages of POST /v1/users/alice/context
}

// readSession makes the three reads; each must succeed.
func (c sessionClient) readSession() sessionReads {
	c.t.Helper()
	var out sessionReads
	code, body := c.do(http.MethodGet, "/v1/users/alice/sessions", nil)
	var list struct {
		Items []struct {
			SessionID    string `json:"session_id"`
			FlowID       string `json:"flow_id"`
			MessageCount int    `json:"message_count"`
		} `json:"items"`
	}
	if err := json.Unmarshal(body, &list); code != http.StatusOK || err != nil {
		c.t.Fatalf("GET /v1/users/alice/sessions = %d %s (%v)", code, body, err)
	}
	for _, it := range list.Items {
		if it.SessionID == "s1" && it.FlowID == "f1" {
			out.listed = it.MessageCount
		}
	}
	out.session = c.exchanges() // fails the test unless 200
	code, body = c.do(http.MethodPost, "/v1/users/alice/context", map[string]any{"query": "what was the question", "session_id": "s1", "flow_id": "f1"})
	var injected struct {
		Sections struct {
			RecentMessages []struct {
				ExchangeID string `json:"exchange_id"`
				Role       string `json:"role"`
			} `json:"recent_messages"`
		} `json:"sections"`
	}
	if err := json.Unmarshal(body, &injected); code != http.StatusOK || err != nil {
		c.t.Fatalf("POST /v1/users/alice/context = %d %s (%v)", code, body, err)
	}
	for _, m := range injected.Sections.RecentMessages {
		if m.Role == "user" {
			out.context = append(out.context, m.ExchangeID)
		}
	}
	return out
}

// Redis killed: the session reads and the context call keep answering (2xx) from
// the SQL fallback, with the turns recorded during the outage; once Redis is back
// and the outage's sessions are moved into it, they answer with every turn, in
// order, and a new turn joins them.
func TestSessions_redisKilledReadsAndContextServeTheOutagesTurns_Redis(t *testing.T) {
	t.Parallel()
	redis := testenv.StartRedis(t)
	addr := freeAddr(t)
	cfg := redisOutageConfig(t, addr, redis.Addr)
	var stores *sessionStores
	app := fxtest.New(t, appOptions(cfg), fx.Populate(&stores))
	app.RequireStart()
	defer app.RequireStop()
	c := sessionClient{t: t, base: "http://" + addr, http: &http.Client{Timeout: 10 * time.Second}}
	record := func(ids ...string) {
		t.Helper()
		for _, id := range ids {
			if err := c.record(id); err != nil {
				t.Fatal(err)
			}
		}
	}

	record("before-1", "before-2")
	if r := c.readSession(); r.listed != 4 || !slices.Equal(r.session, []string{"before-1", "before-2"}) ||
		!slices.Equal(r.context, r.session) {
		t.Fatalf("with redis up: %+v", r)
	}

	redis.Kill()
	wait.Until(t, 20*time.Second, "readyz to say redis down", func() bool { return c.redisState() == "down" })
	record("during-1", "during-2")
	outage := []string{"during-1", "during-2"}
	r := c.readSession()
	if !containsInOrder(r.session, outage) || !containsInOrder(r.context, outage) || r.listed < 2*len(outage) {
		t.Errorf("with redis down the reads miss the outage's turns %v: %+v", outage, r)
	}

	redis.Start()
	wait.Until(t, 20*time.Second, "readyz to say redis up", func() bool { return c.redisState() == "up" })
	wait.Until(t, 20*time.Second, "the outage's session to move back to redis", func() bool {
		refs, err := stores.sql.SessionRefs(context.Background(), 1)
		return err == nil && len(refs) == 0
	})
	record("after-1")
	want := []string{"before-1", "before-2", "during-1", "during-2", "after-1"}
	if r := c.readSession(); r.listed != 2*len(want) || !slices.Equal(r.session, want) || !slices.Equal(r.context, want) {
		t.Errorf("after redis came back: %+v, want %d messages and the turns %v", r, 2*len(want), want)
	}
}

// redisOutageConfig is an api and scheduler process on addr whose sessions live
// in the Redis at redisAddr, quick to notice it gone and back, never folding.
func redisOutageConfig(t *testing.T, addr, redisAddr string) config.Config {
	t.Helper()
	cfg, err := config.Load("", []string{"ENGRAM_DATA_DIR=" + t.TempDir(), "ENGRAM_ROLES=api,scheduler",
		"ENGRAM_HTTP_ADDR=" + addr, "ENGRAM_LOG_LEVEL=error", "ENGRAM_REDIS_ADDR=" + redisAddr,
		"ENGRAM_REDIS_TIMEOUT_MS=300", "ENGRAM_REDIS_PROBE_INTERVAL_MS=50",
		"ENGRAM_SESSION_MAX_HISTORY=1000", "ENGRAM_SESSION_SUMMARY_THRESHOLD=1000"})
	if err != nil {
		t.Fatal(err)
	}
	return cfg
}

// containsInOrder reports whether every id of want is in got, in want's order.
func containsInOrder(got, want []string) bool {
	i := 0
	for _, g := range got {
		if i < len(want) && g == want[i] {
			i++
		}
	}
	return i == len(want)
}
