package llm

import (
	"encoding/json"
	"reflect"
	"testing"

	"engram/domain/candidate"
	"engram/domain/memory"
)

// toCandidate reads one item of the model's answer; each field has its default and
// its message when it is out of range, and the first bad field names the problem.
func TestToCandidate_fieldByField(t *testing.T) {
	t.Parallel()
	sources := []string{"m1", "m2"}
	for _, tc := range []struct {
		name    string
		item    string
		want    candidate.Candidate
		problem string
	}{
		{"defaults", `{"memory_type":"fact","key":"work.city","content":"User works in Berlin"}`,
			candidate.Candidate{Op: candidate.OpAdd, Type: memory.TypeFact, Key: "work.city", Content: "User works in Berlin",
				Importance: memory.DefaultImportance, Confidence: memory.DefaultConfidence, SourceMessageID: "m2"}, ""},
		{"every field set", `{"op":" update ","type":"preference","key":"food.likes","content":"Likes tea","importance":5,"confidence":0.9,"ttl_days":30,"source_message":1}`,
			candidate.Candidate{Op: candidate.OpUpdate, Type: memory.TypePreference, Key: "food.likes", Content: "Likes tea",
				Importance: 5, Confidence: 0.9, TTLDays: 30, SourceMessageID: "m1"}, ""},
		{"op not a string", `{"op":["add"],"memory_type":"fact","key":"a.b","content":"x y"}`, candidate.Candidate{}, `op ["add"] is not a string`},
		{"unknown op", `{"op":"merge","memory_type":"fact","key":"a.b","content":"x y"}`, candidate.Candidate{}, `op "merge" is not ADD, UPDATE, APPEND or DELETE`},
		{"importance out of range", `{"memory_type":"fact","key":"a.b","content":"x y","importance":9}`, candidate.Candidate{}, "importance 9 is not a whole number from 1 to 5"},
		{"importance not whole", `{"memory_type":"fact","key":"a.b","content":"x y","importance":2.5}`, candidate.Candidate{}, "importance 2.5 is not a whole number from 1 to 5"},
		{"confidence out of range", `{"memory_type":"fact","key":"a.b","content":"x y","confidence":1.5}`, candidate.Candidate{}, "confidence 1.5 is not a number from 0 to 1"},
		{"ttl negative", `{"memory_type":"fact","key":"a.b","content":"x y","ttl_days":-1}`, candidate.Candidate{}, "ttl_days -1 is not a whole number from 0 to 36500"},
		{"importance is checked before confidence", `{"memory_type":"fact","key":"a.b","content":"x y","importance":0,"confidence":7}`, candidate.Candidate{}, "importance 0 is not a whole number from 1 to 5"},
		{"the type is checked before the numbers", `{"memory_type":"hobby","key":"a.b","content":"x y","importance":0}`, candidate.Candidate{},
			`memory_type "hobby" is not one of preference, fact, goal, project, constraint, profile`},
	} {
		var raw rawCandidate
		if err := json.Unmarshal([]byte(tc.item), &raw); err != nil {
			t.Fatal(err)
		}
		got, problem := toCandidate(raw, sources)
		if problem != tc.problem || problem == "" && !reflect.DeepEqual(got, tc.want) {
			t.Errorf("%s: got %+v, %q; want %+v, %q", tc.name, got, problem, tc.want, tc.problem)
		}
	}
}
