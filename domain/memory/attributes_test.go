package memory

import (
	"strings"
	"testing"
	"time"
)

func TestParseMetadata(t *testing.T) {
	t.Parallel()
	big := `{"k":"` + strings.Repeat("x", MaxMetadataBytes) + `"}`
	cases := []struct {
		name, raw, want, wantErr string
	}{
		{name: "absent", raw: "", want: ""},
		{name: "null is absent", raw: " null ", want: ""},
		{name: "keys sorted and compact", raw: `{ "b": 1, "a": {"y": true, "x": null} }`, want: `{"a":{"x":null,"y":true},"b":1}`},
		{name: "big numbers kept as written", raw: `{"n": 12345678901234567890.5}`, want: `{"n":12345678901234567890.5}`},
		{name: "empty object kept", raw: `{}`, want: `{}`},
		{name: "array refused", raw: `["a"]`, wantErr: "must be a JSON object"},
		{name: "string refused", raw: `"a"`, wantErr: "must be a JSON object"},
		{name: "trailing value refused", raw: `{"a":1} {"b":2}`, wantErr: "must be a JSON object"},
		{name: "broken JSON refused", raw: `{"a":`, wantErr: "must be a JSON object"},
		{name: "over 16 KB refused", raw: big, wantErr: "must be at most 16384 bytes"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			got, err := ParseMetadata("metadata", []byte(c.raw))
			if c.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), c.wantErr) || !strings.Contains(err.Error(), "metadata") {
					t.Fatalf("ParseMetadata(%q) error %v, want one naming metadata and saying %q", c.raw, err, c.wantErr)
				}
				return
			}
			if err != nil || got.JSON() != c.want {
				t.Fatalf("ParseMetadata(%q) = %q, %v; want %q", c.raw, got.JSON(), err, c.want)
			}
		})
	}
}

func TestParseAttributes_refusesBadIDs(t *testing.T) {
	t.Parallel()
	_, err := ParseAttributes(AttributesInput{AgentID: strings.Repeat("a", 129), RunID: "bad\x01id", Metadata: []byte(`[1]`)})
	for _, field := range []string{"agent_id", "run_id", "metadata"} {
		if err == nil || !strings.Contains(err.Error(), field) {
			t.Errorf("error %v does not name %s", err, field)
		}
	}
	a, err := ParseAttributes(AttributesInput{AppID: "shop"})
	if err != nil || a != (Attributes{AppID: "shop"}) {
		t.Errorf("ParseAttributes(app only) = %+v, %v", a, err)
	}
}

func TestMemory_attributesOverReplaceSetAndPurge(t *testing.T) {
	t.Parallel()
	now := time.Date(2026, 12, 2, 10, 0, 0, 0, time.UTC)
	scope := Scope{Tenant: "t", User: "u"}
	md, _ := ParseMetadata("metadata", []byte(`{"topic":"travel"}`))
	d, err := ParseDraft(DraftInput{Type: "fact", Content: "Flies to Lisbon", Attributes: AttributesInput{AgentID: "a1", RunID: "r1", Metadata: []byte(`{"topic":"travel"}`)}}, Source{})
	if err != nil {
		t.Fatal(err)
	}
	m, err := New("m1", scope, MustParseKey("trip"), d, Policy{}, now)
	if err != nil {
		t.Fatal(err)
	}
	if want := (Attributes{AgentID: "a1", RunID: "r1", Metadata: md}); m.Attributes() != want {
		t.Fatalf("new: %+v, want %+v", m.Attributes(), want)
	}
	d2, _ := ParseDraft(DraftInput{Type: "fact", Content: "Flies to Porto", Attributes: AttributesInput{AppID: "trips", RunID: "r2"}}, Source{})
	r, err := m.Replace(d2, Policy{}, now)
	if err != nil {
		t.Fatal(err)
	}
	if want := (Attributes{AgentID: "a1", AppID: "trips", RunID: "r2", Metadata: md}); r.Attributes() != want {
		t.Errorf("replace: %+v, want %+v", r.Attributes(), want)
	}
	empty, _ := ParseMetadata("metadata", []byte(`{}`))
	cleared, ok := r.Set(Settings{Metadata: &empty}, Source{}, now)
	if !ok || !cleared.Attributes().Metadata.IsZero() {
		t.Errorf("set {} metadata: ok %v, metadata %q; want cleared", ok, cleared.Attributes().Metadata.JSON())
	}
	if _, ok := cleared.Set(Settings{Metadata: &empty}, Source{}, now); ok {
		t.Errorf("clearing absent metadata again reported a change")
	}
	if p := r.Purged(ChannelTool, now); !p.Attributes().IsZero() {
		t.Errorf("purged memory keeps attributes %+v", p.Attributes())
	}
}
