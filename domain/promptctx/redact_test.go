package promptctx

import (
	"testing"
)

func TestTraceRedact(t *testing.T) {
	t.Parallel()
	base := func() Trace {
		return Trace{
			Items:   []TraceItem{{ID: "note.secret", Snippet: "the zebrafinch code", Truncated: true}, {ID: "m1", Snippet: "hello"}},
			RawHits: []RawHit{{ID: "note.secret", Kept: true}, {ID: "note.other", Reason: "budget"}},
		}
	}
	for _, tc := range []struct {
		name        string
		erased      map[string]string
		wantChanged bool
		wantItems   []TraceItem
		wantPurged  []bool // per raw hit
	}{
		{"an injected memory loses its snippet and is named by its purged key", map[string]string{"note.secret": "purged.ab12"}, true,
			[]TraceItem{{ID: "purged.ab12", Purged: true}, {ID: "m1", Snippet: "hello"}}, []bool{true, false}},
		{"an injected message keeps its id", map[string]string{"m1": ""}, true,
			[]TraceItem{{ID: "note.secret", Snippet: "the zebrafinch code", Truncated: true}, {ID: "m1", Purged: true}}, []bool{false, false}},
		{"a dropped candidate is only marked", map[string]string{"note.other": ""}, true,
			[]TraceItem{{ID: "note.secret", Snippet: "the zebrafinch code", Truncated: true}, {ID: "m1", Snippet: "hello"}}, []bool{false, true}},
		{"ids the trace does not name change nothing", map[string]string{"note.absent": ""}, false,
			base().Items, []bool{false, false}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			orig := base()
			tr := orig
			if got := tr.Redact(tc.erased); got != tc.wantChanged {
				t.Fatalf("changed = %v, want %v", got, tc.wantChanged)
			}
			for i, it := range tr.Items {
				if it != tc.wantItems[i] {
					t.Errorf("item %d = %+v, want %+v", i, it, tc.wantItems[i])
				}
			}
			for i, h := range tr.RawHits {
				if h.Purged != tc.wantPurged[i] {
					t.Errorf("raw hit %d purged = %v, want %v", i, h.Purged, tc.wantPurged[i])
				}
			}
			if orig.Items[0].Snippet != "the zebrafinch code" || orig.RawHits[0].Purged {
				t.Error("the redaction wrote into the slices of the trace it was copied from")
			}
			if tr.Redact(tc.erased) {
				t.Error("a second redaction changed the trace again")
			}
		})
	}
}
