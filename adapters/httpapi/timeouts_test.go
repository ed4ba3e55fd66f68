package httpapi_test

import (
	"bytes"
	"errors"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"engram/adapters/httpapi"
	"engram/app/auth"
	"engram/test/wait"
)

// A client that asks for a long response and then reads nothing: once the socket
// buffers are full, a write blocks, and the write deadline ends it instead of
// holding the handler and the connection for good.
func TestEdge_aWriteToAClientThatDoesNotReadEnds(t *testing.T) {
	t.Parallel()
	mux := http.NewServeMux()
	api := httpapi.New(mux, httpapi.Options{MaxBodyBytes: 1 << 20, WriteTimeout: 500 * time.Millisecond}, auth.New(auth.Options{Open: true}, nil, nil, nil))
	var failed atomic.Value
	chunk := bytes.Repeat([]byte("x"), 64<<10)
	httpapi.Mount(api, "GET /stream", "stream", http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		for range 16 << 10 { // up to 1 GiB: far more than any socket buffer holds
			if _, err := w.Write(chunk); err != nil {
				failed.Store(err)
				return
			}
		}
	}))
	srv := httptest.NewServer(api.Handler())
	t.Cleanup(srv.Close)
	conn, err := net.Dial("tcp", strings.TrimPrefix(srv.URL, "http://"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = conn.Close() })
	if _, err := conn.Write([]byte("GET /stream HTTP/1.1\r\nHost: engram\r\n\r\n")); err != nil {
		t.Fatal(err)
	}
	wait.Until(t, time.Minute, "the blocked write to end with an error", func() bool { return failed.Load() != nil })
	var netErr net.Error
	if err := failed.Load().(error); !errors.As(err, &netErr) || !netErr.Timeout() {
		t.Errorf("the write ended with %v, want a timeout", err)
	}
}
