package httpapi_test

import (
	"net/http"
	"strings"
	"testing"

	"engram/adapters/httpapi"
)

func TestSave_attributesAreStoredAndReturnedWithTheID(t *testing.T) {
	t.Parallel()
	h := newHarness(t, false)
	resp := h.api.Put("/v1/users/alice/memories/trip", map[string]any{"type": "fact", "content": "Flies to Lisbon",
		"agent_id": "travel-bot", "app_id": "trips", "run_id": "r1", "metadata": map[string]any{"topic": "travel", "n": 2}})
	if resp.Code != http.StatusCreated {
		t.Fatalf("save: %d %s", resp.Code, resp.Body.String())
	}
	m := decode[httpapi.Memory](t, resp)
	if m.ID == "" || m.AgentID != "travel-bot" || m.AppID != "trips" || m.RunID != "r1" || m.Metadata["topic"] != "travel" {
		t.Fatalf("saved memory: %+v", m)
	}
	// A replace that names no attributes keeps them; the id never changes.
	resp = h.api.Put("/v1/users/alice/memories/trip", map[string]any{"type": "fact", "content": "Flies to Porto"})
	again := decode[httpapi.Memory](t, resp)
	if again.ID != m.ID || again.AgentID != "travel-bot" || again.Metadata["topic"] != "travel" {
		t.Errorf("replaced memory: %+v, want id %s and the attributes kept", again, m.ID)
	}
	// PATCH replaces the metadata; {} clears it.
	resp = h.api.Patch("/v1/users/alice/memories/trip", map[string]any{"metadata": map[string]any{"topic": "work"}})
	if p := decode[httpapi.Memory](t, resp); resp.Code != http.StatusOK || p.Metadata["topic"] != "work" || p.ID != m.ID {
		t.Errorf("patch metadata: %d %s", resp.Code, resp.Body.String())
	}
	resp = h.api.Patch("/v1/users/alice/memories/trip", map[string]any{"metadata": map[string]any{}})
	if p := decode[httpapi.Memory](t, resp); resp.Code != http.StatusOK || p.Metadata != nil {
		t.Errorf("patch metadata {}: %d %s, want it cleared", resp.Code, resp.Body.String())
	}
	resp = h.api.Get("/v1/users/alice/memories/trip")
	if strings.Contains(resp.Body.String(), `"metadata"`) {
		t.Errorf("cleared metadata still answered: %s", resp.Body.String())
	}
}

func TestSave_badAttributesAre422NamingTheField(t *testing.T) {
	t.Parallel()
	h := newHarness(t, false)
	big := map[string]any{"k": strings.Repeat("x", 16*1024)}
	tests := []struct {
		name     string
		body     map[string]any
		location string
	}{
		{"metadata over 16 KB", map[string]any{"type": "fact", "content": "x", "metadata": big}, "body.metadata"},
		{"metadata not an object", map[string]any{"type": "fact", "content": "x", "metadata": []string{"a"}}, "body.metadata"},
		{"agent_id of 129 characters", map[string]any{"type": "fact", "content": "x", "agent_id": strings.Repeat("a", 129)}, "body.agent_id"},
		{"run_id with a control character", map[string]any{"type": "fact", "content": "x", "run_id": "a\x01b"}, "body.run_id"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			expectProblem(t, h.api.Put("/v1/users/alice/memories/k", tt.body), http.StatusUnprocessableEntity, tt.location)
		})
	}
	expectProblem(t, h.api.Patch("/v1/users/alice/memories/k", map[string]any{"metadata": big}), http.StatusUnprocessableEntity, "body.metadata")
}
