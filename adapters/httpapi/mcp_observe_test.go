package httpapi_test

import (
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"engram/adapters/httpapi"
	"engram/app/auth"
	"engram/test/fakeclock"
	"engram/test/teststore"
)

type observation struct {
	operation string
	status    int
}

type recordingObserver struct {
	mu  sync.Mutex
	got []observation
}

func (o *recordingObserver) ObserveRequest(operation string, status int, _ time.Duration) {
	o.mu.Lock()
	defer o.mu.Unlock()
	o.got = append(o.got, observation{operation, status})
}

// /mcp is outside huma, so outside its observing middleware: its requests are
// observed as operation "mcp", a refused key included.
func TestMountMCP_requestsAreObservedAsOperationMCP(t *testing.T) {
	t.Parallel()
	clk := fakeclock.New(time.Date(2026, 11, 30, 9, 0, 0, 0, time.UTC))
	authn := auth.New(auth.Options{Configured: map[string]string{acmeKey: "acme"}}, teststore.New(t).APIKeys, clk, &seqIDs{})
	obs := &recordingObserver{}
	api := httpapi.New(http.NewServeMux(), httpapi.Options{Observer: obs}, authn)
	httpapi.MountMCP(api, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.WriteHeader(http.StatusAccepted)
	}))
	for _, key := range []string{acmeKey, "wrong"} {
		req := httptest.NewRequest(http.MethodPost, httpapi.MCPPath, strings.NewReader(`{}`))
		req.Header.Set("Authorization", "Bearer "+key)
		api.Handler().ServeHTTP(httptest.NewRecorder(), req)
	}
	want := []observation{{"mcp", http.StatusAccepted}, {"mcp", http.StatusUnauthorized}}
	if !slices.Equal(obs.got, want) {
		t.Errorf("observed %v, want %v", obs.got, want)
	}
}
