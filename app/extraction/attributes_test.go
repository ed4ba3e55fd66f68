package extraction_test

import (
	"strings"
	"testing"

	"engram/domain/memory"
)

// A memory learned from a message carries the message's agent, app and run ids
// and its metadata, so a filter on any of them finds it.
func TestPipeline_memoriesCarryTheAttributesOfTheirMessage(t *testing.T) {
	t.Parallel()
	e := newEnv(t, envOptions{})
	msg := user("m1", "Please remember that I am allergic to peanuts.")
	msg.Attributes = memory.AttributesInput{AgentID: "chef-bot", AppID: "kitchen", RunID: "run-7", Metadata: []byte(`{"source":"onboarding"}`)}
	e.post("c1", msg)
	e.tick()

	live := e.live()
	var learned memory.Memory
	for _, m := range live {
		learned = m
	}
	if len(live) != 1 || !strings.Contains(learned.Content(), "peanut") {
		t.Fatalf("memories %v, want the peanut allergy", keysOf(live))
	}
	want, err := memory.ParseAttributes(msg.Attributes)
	if err != nil {
		t.Fatal(err)
	}
	if got := learned.Attributes(); got != want {
		t.Errorf("attributes %+v, want those of the message %+v", got, want)
	}
	if got := e.message("m1").Attributes; got != want {
		t.Errorf("stored message attributes %+v, want %+v", got, want)
	}
}
