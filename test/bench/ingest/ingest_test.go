package ingest

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"sync/atomic"
	"testing"
	"time"

	"engram/adapters/clock"
	"engram/adapters/httpapi"
	"engram/adapters/sqlstore"
	"engram/adapters/ulids"
	"engram/app/auth"
	"engram/app/messages"
	"engram/test/teststore"
)

// ingestServer is the HTTP API with the messages routes over SQLite, as `engram
// serve` wires it, on a loopback listener.
func ingestServer(b *testing.B) string {
	db := teststore.Open(b)
	svc := messages.New(sqlstore.NewMessageStore(db), clock.System{}, ulids.New(), messages.Options{Debounce: 12 * time.Second})
	api := httpapi.New(http.NewServeMux(), httpapi.Options{MaxBodyBytes: 1 << 20}, auth.New(auth.Options{Open: true}, nil, nil, nil))
	httpapi.RegisterMessages(api, svc)
	srv := httptest.NewServer(api.Handler())
	b.Cleanup(srv.Close)
	return srv.URL
}

var batchSeq atomic.Int64

// batchBody is 500 messages of 100 conversations (user and assistant turns, about
// 60 characters each), all with new ids.
func batchBody() []byte {
	n := batchSeq.Add(1)
	msgs := make([]map[string]any, 0, 500)
	for i := range 500 {
		role, content := "user", fmt.Sprintf("I have been learning to play the piano for %d years now.", i)
		if i%2 == 1 {
			role, content = "assistant", "That is wonderful! What pieces are you practising these days?"
		}
		msgs = append(msgs, map[string]any{
			"conversation_id": fmt.Sprintf("b%d-c%d", n, i/5), "message_id": fmt.Sprintf("b%d-m%d", n, i),
			"role": role, "content": content,
		})
	}
	body, _ := json.Marshal(map[string]any{"messages": msgs})
	return body
}

func postBatch(client *http.Client, url string, body []byte) error {
	resp, err := client.Post(url+"/v1/users/bench/messages:batch", "application/json", bytes.NewReader(body))
	if err != nil {
		return err
	}
	_, _ = io.Copy(io.Discard, resp.Body)
	_ = resp.Body.Close()
	if resp.StatusCode != http.StatusAccepted {
		return fmt.Errorf("batch = %d", resp.StatusCode)
	}
	return nil
}

// BenchmarkIngestBatchHTTP posts batches of 500 messages over HTTP to the SQLite
// store, one client after another (sequential) and from 4 clients at once.
func BenchmarkIngestBatchHTTP(b *testing.B) {
	for _, clients := range []int{1, 4} {
		b.Run(fmt.Sprintf("clients=%d", clients), func(b *testing.B) {
			url := ingestServer(b)
			bodies := make([][]byte, b.N)
			for i := range bodies {
				bodies[i] = batchBody()
			}
			client := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: clients}}
			var next atomic.Int64
			b.SetBytes(int64(len(bodies[0])))
			b.ResetTimer()
			done := make(chan struct{})
			for range clients {
				go func() {
					defer func() { done <- struct{}{} }()
					for {
						i := next.Add(1) - 1
						if i >= int64(b.N) {
							return
						}
						if err := postBatch(client, url, bodies[i]); err != nil {
							b.Error(err)
							return
						}
					}
				}()
			}
			for range clients {
				<-done
			}
			b.StopTimer()
			b.ReportMetric(float64(b.N*500)/b.Elapsed().Seconds(), "msgs/s")
		})
	}
}
