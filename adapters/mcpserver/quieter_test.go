package mcpserver

import (
	"bytes"
	"context"
	"log/slog"
	"strings"
	"testing"
)

// The SDK's session lines stay out of an INFO log; its errors come through as WARN.
func TestQuieter_sdkLinesOneLevelDown(t *testing.T) {
	t.Parallel()
	var buf bytes.Buffer
	log := slog.New(quieter{slog.NewTextHandler(&buf, &slog.HandlerOptions{Level: slog.LevelInfo})}).With("component", "mcp")
	log.Info("server session connected")
	log.Error("server run cancelled")
	out := buf.String()
	if strings.Contains(out, "session connected") || !strings.Contains(out, "level=WARN") || !strings.Contains(out, "component=mcp") {
		t.Errorf("log:\n%s", out)
	}
	if !(quieter{slog.NewTextHandler(&buf, &slog.HandlerOptions{Level: slog.LevelDebug})}).Enabled(context.Background(), slog.LevelInfo) {
		t.Error("a debug log drops the SDK's lines")
	}
}
