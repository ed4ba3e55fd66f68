package bootstrap

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/redis/rueidis"
	"go.uber.org/fx"
	"go.uber.org/fx/fxtest"

	"engram/app/extraction"
	"engram/bootstrap/config"
	"engram/ports"
	"engram/test/testenv"
	"engram/test/wait"
)

// sessionClient talks to the API of a test app.
type sessionClient struct {
	t    *testing.T
	base string
	http *http.Client
}

func (c sessionClient) do(method, path string, body any) (int, []byte) {
	c.t.Helper()
	var r io.Reader
	if body != nil {
		b, _ := json.Marshal(body)
		r = bytes.NewReader(b)
	}
	req, _ := http.NewRequest(method, c.base+path, r)
	req.Header.Set("Content-Type", "application/json")
	resp, err := c.http.Do(req)
	if err != nil {
		c.t.Fatalf("%s %s: %v", method, path, err)
	}
	defer resp.Body.Close()
	data, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, data
}

func (c sessionClient) record(id string) error {
	code, body := c.do(http.MethodPost, "/v1/users/alice/sessions/s1/exchanges",
		map[string]any{"flow_id": "f1", "exchange_id": id, "user_message": "question " + id, "assistant_message": "answer " + id})
	if code != http.StatusAccepted {
		return fmt.Errorf("record %s: %d %s", id, code, body)
	}
	return nil
}

func (c sessionClient) redisState() string {
	_, body := c.do(http.MethodGet, "/readyz", nil)
	var r struct {
		Redis string `json:"redis"`
	}
	_ = json.Unmarshal(body, &r)
	return r.Redis
}

func (c sessionClient) exchanges() []string {
	c.t.Helper()
	code, body := c.do(http.MethodGet, "/v1/users/alice/sessions/s1?flow_id=f1", nil)
	if code != http.StatusOK {
		c.t.Fatalf("read the session: %d %s", code, body)
	}
	var v struct {
		Messages []struct {
			ExchangeID string `json:"exchange_id"`
			Role       string `json:"role"`
		} `json:"messages"`
	}
	if err := json.Unmarshal(body, &v); err != nil {
		c.t.Fatal(err)
	}
	var out []string
	for _, m := range v.Messages {
		if m.Role == "user" {
			out = append(out, m.ExchangeID)
		}
	}
	return out
}

// Redis killed while turns are recorded: no call fails (SQL serves), /readyz says
// redis down, and once Redis is back new turns go to it and the turns recorded
// meanwhile are moved into it, so the session holds every turn once, in order.
func TestSessions_redisKilledMidRunFallsBackToSQLAndRecovers_Redis(t *testing.T) {
	t.Parallel()
	redis := testenv.StartRedis(t)
	addr := freeAddr(t)
	cfg := redisOutageConfig(t, addr, redis.Addr)
	var (
		stores *sessionStores
		msgs   extraction.Queue
	)
	app := fxtest.New(t, appOptions(cfg), fx.Populate(&stores, &msgs))
	app.RequireStart()
	defer app.RequireStop()
	c := sessionClient{t: t, base: "http://" + addr, http: &http.Client{Timeout: 10 * time.Second}}
	rc, err := rueidis.NewClient(rueidis.ClientOption{InitAddress: []string{redis.Addr}, DisableCache: true, ForceSingleClient: true})
	if err != nil {
		t.Fatal(err)
	}
	defer rc.Close()
	listKey := cfg.Redis.KeyPrefix + ":default:alice:f1:s1:messages"
	inRedis := func() int64 {
		n, _ := rc.Do(context.Background(), rc.B().Llen().Key(listKey).Build()).AsInt64()
		return n
	}

	if got := c.redisState(); got != "up" {
		t.Fatalf("readyz redis %q before the kill", got)
	}
	var want []string
	for i := range 3 {
		id := fmt.Sprintf("x%03d", i)
		if err := c.record(id); err != nil {
			t.Fatal(err)
		}
		want = append(want, id)
	}
	if n := inRedis(); n != 6 {
		t.Fatalf("redis holds %d messages, want 6", n)
	}

	// Turns keep coming while Redis is killed and started again.
	var (
		mu       sync.Mutex
		next     atomic.Int64
		failures []error
		stop     = make(chan struct{})
		done     = make(chan struct{})
	)
	next.Store(3)
	go func() {
		defer close(done)
		for {
			select {
			case <-stop:
				return
			default:
			}
			id := fmt.Sprintf("x%03d", next.Add(1)-1)
			err := c.record(id)
			mu.Lock()
			want = append(want, id)
			if err != nil {
				failures = append(failures, err)
			}
			mu.Unlock()
			time.Sleep(5 * time.Millisecond)
		}
	}()
	wait.Until(t, 20*time.Second, "some of them to reach redis", func() bool { return inRedis() >= 12 })
	redis.Kill()
	wait.Until(t, 20*time.Second, "readyz to say redis down", func() bool { return c.redisState() == "down" })
	if code, body := c.do(http.MethodGet, "/readyz", nil); code != http.StatusOK || !strings.Contains(string(body), `"degraded"`) {
		t.Errorf("readyz with redis down: %d %s", code, body)
	}
	wait.Until(t, 20*time.Second, "ten turns recorded in SQL", func() bool {
		refs, _ := stores.sql.SessionRefs(context.Background(), 1)
		if len(refs) != 1 {
			return false
		}
		v, err := stores.sql.Session(context.Background(), refs[0], 0)
		return err == nil && v.Meta.Held >= 20
	})
	if code, _ := c.do(http.MethodGet, "/v1/users/alice/sessions", nil); code != http.StatusOK {
		t.Errorf("listing with redis down: %d", code)
	}
	redis.Start()
	wait.Until(t, 20*time.Second, "readyz to say redis up", func() bool { return c.redisState() == "up" })
	wait.Until(t, 20*time.Second, "the SQL sessions to move back to redis", func() bool {
		refs, _ := stores.sql.SessionRefs(context.Background(), 1)
		return len(refs) == 0
	})
	close(stop)
	<-done

	if len(failures) > 0 {
		t.Fatalf("%d of %d turns failed, first: %v", len(failures), len(want), failures[0])
	}
	got := c.exchanges()
	if !slices.Equal(got, want) {
		t.Fatalf("the session holds %d turns %v\nwant %d %v", len(got), got, len(want), want)
	}
	before := inRedis()
	if before != int64(2*len(want)) {
		t.Errorf("redis holds %d messages, want %d: the turns recorded in SQL were not moved back", before, 2*len(want))
	}
	if err := c.record("last"); err != nil {
		t.Fatal(err)
	}
	if n := inRedis(); n != before+2 {
		t.Errorf("a turn after recovery did not go to redis: %d → %d messages", before, n)
	}
	if refs, _ := stores.sql.SessionRefs(context.Background(), 1); len(refs) != 0 {
		t.Errorf("a turn after recovery went to SQL: %v", refs)
	}
	// Every turn reached the extraction channel once: through the relay from
	// Redis, or written directly while SQL served.
	want = append(want, "last")
	wait.Until(t, 20*time.Second, "the relay to write every turn", func() bool {
		n, _ := stores.redis.TurnBacklog(context.Background())
		return n == 0
	})
	due, err := msgs.ClaimDue(context.Background(), ports.Claim{Worker: "test", Now: time.Now().Add(time.Hour), Lease: time.Minute, MaxConversations: 10})
	if err != nil {
		t.Fatal(err)
	}
	var extracted []string
	for _, m := range due {
		extracted = append(extracted, strings.TrimPrefix(m.Content, "question "))
	}
	if !slices.Equal(extracted, want) {
		t.Errorf("the extraction channel holds %d user messages %v\nwant %d %v", len(extracted), extracted, len(want), want)
	}
	_, metricsBody := c.do(http.MethodGet, "/metrics", nil)
	for _, m := range []string{`engram_session_redis_fallbacks_total{op="append"}`, "engram_session_redis_drained_total",
		`engram_session_relayed_turns_total{outcome="written"}`, "engram_session_relay_backlog 0"} {
		if !strings.Contains(string(metricsBody), m) {
			t.Errorf("/metrics lacks %s", m)
		}
	}
	t.Logf("%d turns recorded across the kill and the restart", len(want))
}

// With no Redis configured, sessions live in SQL and /readyz reports redis
// disabled.
func TestSessions_withoutRedisLiveInSQL(t *testing.T) {
	t.Parallel()
	addr := freeAddr(t)
	cfg, err := config.Load("", []string{"ENGRAM_DATA_DIR=" + t.TempDir(), "ENGRAM_ROLES=api,scheduler",
		"ENGRAM_HTTP_ADDR=" + addr, "ENGRAM_LOG_LEVEL=error",
		"ENGRAM_SESSION_SUMMARY_THRESHOLD=6", "ENGRAM_SESSION_SUMMARY_KEEP=2"})
	if err != nil {
		t.Fatal(err)
	}
	app := fxtest.New(t, appOptions(cfg))
	app.RequireStart()
	defer app.RequireStop()
	c := sessionClient{t: t, base: "http://" + addr, http: &http.Client{Timeout: 10 * time.Second}}
	if got := c.redisState(); got != "disabled" {
		t.Errorf("readyz redis %q", got)
	}
	for i := range 3 {
		if err := c.record(fmt.Sprintf("x%d", i)); err != nil {
			t.Fatal(err)
		}
	}
	// The scheduler's folder was woken by the record that queued the session.
	wait.Until(t, 20*time.Second, "the fold", func() bool {
		code, body := c.do(http.MethodGet, "/v1/users/alice/sessions/s1", nil)
		return code == http.StatusOK && strings.Contains(string(body), `"summary_version":1`)
	})
	if got := c.exchanges(); !slices.Equal(got, []string{"x2"}) {
		t.Errorf("after the fold the session holds %v", got)
	}
}
