package mcpserver

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"engram/ports"
)

func TestToolError_whatTheModelIsTold(t *testing.T) {
	s := &Server{log: slog.New(slog.NewTextHandler(io.Discard, nil))}
	cases := []struct {
		name string
		err  error
		want string
	}{
		{"a user being erased", fmt.Errorf("save: %w", &ports.ErasingError{JobID: "01JOB"}),
			"the user is being erased (job 01JOB): nothing of the user can be written until that job is DONE; do not retry"},
		{"a store that does not answer", fmt.Errorf("save: %w", ports.ErrUnavailable), "try the call again shortly"},
		{"anything else", errors.New("boom"), "internal error"},
	}
	for _, c := range cases {
		res, err := s.toolError(context.Background(), "memory_save", c.err)
		if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		got := res.Content[0].(*mcp.TextContent).Text
		if !res.IsError || !strings.Contains(got, c.want) {
			t.Errorf("%s: error %v, %q; want %q", c.name, res.IsError, got, c.want)
		}
	}
}
