package contract

import (
	"context"
	"fmt"
	"testing"
	"time"

	"engram/domain/memory"
	"engram/domain/session"
	"engram/ports"
)

// BenchSessionUsersPage measures one page of GET /v1/users' session share:
// UsersAfter(100), then the Activity of those users, over a tenant of 1,000 users
// with 5 live sessions each, page after page (docs/BENCHMARKS.md "Sessions in
// GET /v1/users").
func BenchSessionUsersPage(b *testing.B, s SessionActivity) {
	ctx := context.Background()
	now := time.Now()
	for u := range 1000 {
		for i := range 5 {
			ref := session.Ref{Scope: memory.Scope{Tenant: "acme", User: fmt.Sprintf("user-%04d", u)}, FlowID: fmt.Sprintf("flow-%d", i), SessionID: "s"}
			x, err := session.NewExchange(ref, session.ExchangeInput{ExchangeID: "x1", UserMessage: "q", AssistantMessage: "a"}, "", now)
			if err != nil {
				b.Fatal(err)
			}
			if _, err := s.AppendExchange(ctx, ports.SessionAppend{Exchange: x}); err != nil {
				b.Fatal(err)
			}
		}
	}
	after := ""
	for b.Loop() {
		users, err := s.UsersAfter(ctx, "acme", after, 100)
		if err != nil || len(users) != 100 {
			b.Fatalf("UsersAfter: %d users, %v", len(users), err)
		}
		acts, err := s.Activity(ctx, "acme", users)
		if err != nil || acts[users[0]].Count != 5 {
			b.Fatalf("Activity: %v %v", acts[users[0]], err)
		}
		if after = users[99]; after == "user-0999" {
			after = ""
		}
	}
}
