package bootstrap

import (
	"context"
	"io"
	"net"
	"net/http"
	"strings"
	"testing"
	"time"

	"go.uber.org/fx"
	"go.uber.org/fx/fxtest"

	"engram/bootstrap/config"
	"engram/domain/memory"
	"engram/ports"
	"engram/test/wait"
)

func freeAddr(t *testing.T) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	return ln.Addr().String()
}

// Every role starts and stops on its own and together: the fx graph of each
// combination is complete, and no lifecycle hook blocks.
func TestRoles_eachStartsAndStopsAlone(t *testing.T) {
	t.Parallel()
	for _, roles := range []string{"api", "worker", "indexer", "scheduler", "api,worker,indexer,scheduler"} {
		t.Run(roles, func(t *testing.T) {
			t.Parallel()
			cfg, err := config.Load("", []string{"ENGRAM_DATA_DIR=" + t.TempDir(), "ENGRAM_ROLES=" + roles,
				"ENGRAM_HTTP_ADDR=" + freeAddr(t), "ENGRAM_LOG_LEVEL=error"})
			if err != nil {
				t.Fatal(err)
			}
			app := fxtest.New(t, appOptions(cfg))
			app.RequireStart()
			app.RequireStop()
		})
	}
}

// A worker alone has no API, so ENGRAM_METRICS_ADDR gives its metrics an endpoint.
func TestMetricsAddr_servesAProcessWithoutTheAPI(t *testing.T) {
	t.Parallel()
	addr := freeAddr(t)
	cfg, err := config.Load("", []string{"ENGRAM_DATA_DIR=" + t.TempDir(), "ENGRAM_ROLES=worker",
		"ENGRAM_METRICS_ADDR=" + addr, "ENGRAM_LOG_LEVEL=error"})
	if err != nil {
		t.Fatal(err)
	}
	app := fxtest.New(t, appOptions(cfg))
	app.RequireStart()
	defer app.RequireStop()
	resp, err := http.Get("http://" + addr + "/metrics")
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK || !strings.Contains(string(body), "engram_extraction") && !strings.Contains(string(body), "engram_messages") {
		t.Errorf("/metrics: %d, extraction metrics missing:\n%.2000s", resp.StatusCode, body)
	}
}

// The scheduler role expires what passed its TTL, with an EXPIRE event.
func TestScheduler_sweepsExpiredMemories(t *testing.T) {
	t.Parallel()
	cfg, err := config.Load("", []string{"ENGRAM_DATA_DIR=" + t.TempDir(), "ENGRAM_ROLES=scheduler", "ENGRAM_LOG_LEVEL=error"})
	if err != nil {
		t.Fatal(err)
	}
	var (
		store ports.MemoryStore
		ids   ports.IDs
	)
	app := fxtest.New(t, appOptions(cfg), fx.Populate(&store, &ids))
	scope := memory.Scope{Tenant: "default", User: "alice"}
	past := time.Now().UTC().Add(-48 * time.Hour)
	_, err = store.Update(context.Background(), scope, memory.MustParseKey("trip"), func(*memory.Memory) (memory.Change, error) {
		m := memory.Restore(memory.State{ID: ids.New(), Scope: scope, Key: memory.MustParseKey("trip"), Type: memory.TypeFact,
			Content: "User is in Paris this week", Importance: 3, Confidence: 0.8, Active: true,
			ExpiresAt: past.Add(24 * time.Hour), Source: memory.Source{Channel: memory.ChannelTool},
			Vector: memory.VectorState{Status: memory.VectorDirty}, Version: 1, CreatedAt: past, UpdatedAt: past})
		return memory.Change{Memory: m, Event: memory.NewEvent(ids.New(), memory.OpAdd, nil, m)}, nil
	})
	if err != nil {
		t.Fatal(err)
	}
	app.RequireStart()
	defer app.RequireStop()
	var events []memory.Event
	if !wait.For(10*time.Second, func() bool {
		events, err = store.History(context.Background(), scope, memory.MustParseKey("trip"))
		return err == nil && len(events) == 2 && events[1].Op == memory.OpExpire
	}) {
		t.Fatalf("no EXPIRE event within 10s: %d events, %v", len(events), err)
	}
}
