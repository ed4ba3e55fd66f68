package e2e

import (
	"context"
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/oklog/ulid/v2"
	"github.com/redis/rueidis"

	"engram/test/testenv"
	"engram/test/wait"
)

// Sessions join the rest of engram, through the binary: an agent records turns in
// two flows; GET /v1/users counts the user's sessions at once; the worker's
// refresh (debounced, marked by the turns) lists both flows as favourite workflows
// with their runs; the lexical indexer logs its batch of the relayed messages;
// and after an erasure the user is neither listed nor left in the session store.
func runSessionSources(t *testing.T, srv *Server, user string) {
	t.Helper()
	turn := func(session, flow, name string, i int) {
		t.Helper()
		if code := srv.Do(http.MethodPost, "/v1/users/"+user+"/sessions/"+session+"/exchanges", map[string]any{
			"flow_id": flow, "flow_name": name, "exchange_id": fmt.Sprintf("%s-%d", session, i),
			"user_message": fmt.Sprintf("第 %d 个请求：帮我处理一下", i), "assistant_message": "好的。",
		}, nil); code != http.StatusAccepted {
			t.Fatalf("turn %s/%d: %d", session, i, code)
		}
	}
	for i := range 3 {
		turn("s1", "weekly", "周报生成", i)
	}
	turn("s2", "assign", "任务分配", 0)

	var users struct {
		Items []struct {
			UserID   string `json:"user_id"`
			Sessions int    `json:"sessions"`
		} `json:"items"`
	}
	if code := srv.Do(http.MethodGet, "/v1/users", nil, &users); code != http.StatusOK {
		t.Fatalf("GET /v1/users: %d", code)
	}
	sessions := -1
	for _, u := range users.Items {
		if u.UserID == user {
			sessions = u.Sessions
		}
	}
	if sessions != 2 {
		t.Errorf("GET /v1/users counts %d sessions of %s, want 2: %+v", sessions, user, users.Items)
	}

	var p profileView
	wait.Until(t, 60*time.Second, "the profile to list both flows as favourite workflows", func() bool {
		p = profileView{}
		code := srv.Do(http.MethodGet, "/v1/users/"+user+"/profile", nil, &p, "X-Acting-User", user)
		return code == http.StatusOK && len(p.FavoriteWorkflows) == 2
	})
	if w := p.FavoriteWorkflows; w[0].FlowName != "周报生成" || w[0].Count != 3 || w[1].FlowName != "任务分配" || w[1].Count != 1 {
		t.Errorf("favourite workflows %+v, want 周报生成 3 and 任务分配 1", w)
	}
	if p.TotalConversations < 2 || !strings.Contains(p.Prompt, "周报生成(3次)") {
		t.Errorf("profile conversations %d, prompt %q; want at least the 2 sessions and 常用流程 周报生成(3次)", p.TotalConversations, p.Prompt)
	}
	wait.Until(t, 60*time.Second, "the lexical indexer's log line for the relayed messages", func() bool {
		for _, line := range strings.Split(srv.Logs(), "\n") {
			if containsAll(line, []string{"lexical index batch", "pass=messages", "indexed="}) {
				return true
			}
		}
		return false
	})

	var job struct {
		JobID string `json:"job_id"`
	}
	if code := srv.Do(http.MethodDelete, "/v1/users/"+user, nil, &job); code != http.StatusAccepted {
		t.Fatalf("erase: %d", code)
	}
	waitJob(t, srv, job.JobID)
	users.Items = nil
	srv.Do(http.MethodGet, "/v1/users", nil, &users)
	for _, u := range users.Items {
		if u.UserID == user {
			t.Errorf("GET /v1/users lists %s after the erasure: %+v", user, u)
		}
	}
}

var sessionSourcesEnv = []string{"ENGRAM_PROFILE_REFRESH_DEBOUNCE_SEC=1", "ENGRAM_PROFILE_REFRESH_MAX_WAIT_SEC=2",
	"LONG_TERM_MEMORY_DEBOUNCE_SEC=0.2"}

func TestSessions_countedInUsersAndProfilesOnTheEmbeddedDefault(t *testing.T) {
	srv := Start(t, append([]string{"ENGRAM_DATA_DIR=" + t.TempDir()}, sessionSourcesEnv...)...)
	runSessionSources(t, srv, "carol")
	srv.Stop()
}

// With Redis the counts come from the tenant's user sets (no key scans), and the
// erasure leaves no key, set member or value of the user under the prefix.
func TestSessions_countedInUsersAndProfilesOnPostgresAndRedis_Postgres_Redis(t *testing.T) {
	srv, redisAddr, prefix := startOnPostgresAndRedis(t, sessionSourcesEnv...)
	runSessionSources(t, srv, "dave-redis")
	srv.Stop()
	if left := redisTraces(t, redisAddr, prefix, "dave-redis"); len(left) > 0 {
		t.Errorf("the erased user is still in redis:\n%s", strings.Join(left, "\n"))
	}
}

// startOnPostgresAndRedis starts engram on a PostgreSQL database of its own and
// under a Redis key prefix of its own (deleted when the test ends); it returns the
// Redis address and the prefix.
func startOnPostgresAndRedis(t *testing.T, env ...string) (*Server, string, string) {
	t.Helper()
	dsn := testenv.NewPostgresDatabase(t)
	redisAddr := testenv.RedisAddr(t)
	prefix := "engram-e2e-" + strings.ToLower(ulid.Make().String())
	t.Cleanup(func() { _ = testenv.DeleteRedisPrefix(redisAddr, prefix) })
	srv := Start(t, append([]string{"ENGRAM_DATA_DIR=" + t.TempDir(), "ENGRAM_DATABASE_URL=" + dsn,
		"ENGRAM_REDIS_ADDR=" + redisAddr, "ENGRAM_REDIS_KEY_PREFIX=" + prefix}, env...)...)
	return srv, redisAddr, prefix
}

// redisTraces lists the keys under prefix whose name or members name user: what
// the test (never the server) finds with SCAN.
func redisTraces(t *testing.T, addr, prefix, user string) []string {
	t.Helper()
	c, err := rueidis.NewClient(rueidis.ClientOption{InitAddress: []string{addr}, DisableCache: true, ForceSingleClient: true})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	var found []string
	var cursor uint64
	for {
		e, err := c.Do(ctx, c.B().Scan().Cursor(cursor).Match(prefix+":*").Count(1000).Build()).AsScanEntry()
		if err != nil {
			t.Fatal(err)
		}
		for _, key := range e.Elements {
			if strings.Contains(key, user) {
				found = append(found, "key "+key)
				continue
			}
			if kind, _ := c.Do(ctx, c.B().Type().Key(key).Build()).ToString(); kind == "zset" {
				members, _ := c.Do(ctx, c.B().Zrange().Key(key).Min("0").Max("-1").Build()).AsStrSlice()
				for _, m := range members {
					if strings.Contains(m, user) {
						found = append(found, "member of "+key+": "+m)
					}
				}
			}
		}
		if cursor = e.Cursor; cursor == 0 {
			return found
		}
	}
}
