package httpapi_test

import (
	"errors"
	"testing"
	"time"

	"engram/app/memories"
	"engram/app/tools"
	"engram/domain/invalid"
	"engram/domain/memory"
	"engram/ports"
	"engram/test/fakeclock"
	"engram/test/teststore"
)

// FuzzToolArguments sends any arguments to memory_save and memory_append through
// the toolbox, as MCP does (no HTTP edge in front): every refusal is an argument
// error or a not-found worded for the model, and whatever is stored is valid text
// without NUL.
func FuzzToolArguments(f *testing.F) {
	f.Add("memory_save", `{"key":"diet","type":"fact","content":"vegetarian"}`)
	f.Add("memory_save", `"{\"key\":\"diet\",\"type\":\"fact\",\"content\":\"a\\u0000b\"}"`)
	f.Add("memory_save", "{\"key\":\"k\",\"type\":\"fact\",\"content\":\"caf\xe9\"}")
	f.Add("memory_save", `{"key":"k","type":"fact","content":"\udc00"}`)
	f.Add("memory_save", `{"key":"k","type":"fact","content":"x","importance":1e309}`)
	f.Add("memory_append", `{"key":"diet","content":"and eggs","user_id":"bob"}`)
	f.Add("memory_append", `[`)
	f.Add("memory_save", `null`)
	f.Add("memory_save", `{"key":"k","type":"fact","content":"x","content":"y"}`)
	f.Add("memory_save", `{"KEY":"k","Type":"fact","content":"x"}`)
	clk := fakeclock.New(time.Date(2026, 11, 30, 9, 0, 0, 0, time.UTC))
	tb, mem, _, _ := newToolbox(f, teststore.New(f), clk, &seqIDs{})
	f.Fuzz(func(t *testing.T, name, arguments string) {
		_, err := tb.Call(t.Context(), tools.Call{Tenant: "acme", Name: name, Arguments: []byte(arguments), User: "u"})
		var (
			ve       *invalid.Error
			notFound *ports.NotFoundError
		)
		if err != nil && !errors.As(err, &ve) && !errors.As(err, &notFound) {
			t.Fatalf("%s %q: %v, neither an argument error nor a not-found", name, arguments, err)
		}
		if ve != nil && tools.Explain(ve) == "" {
			t.Fatalf("%s %q: an argument error that explains nothing", name, arguments)
		}
		for _, user := range []string{"u", "bob"} {
			list, err := mem.List(t.Context(), memories.List{Scope: memory.Scope{Tenant: "acme", User: user}, IncludeInactive: true, Limit: memories.MaxListLimit})
			if err != nil {
				t.Fatal(err)
			}
			for _, m := range list.Items {
				cleanText(t, name+" "+arguments, m.Key().String(), m.Content())
			}
		}
	})
}
