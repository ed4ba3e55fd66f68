package e2e

import (
	"engram/test/wait"
	"net/http"
	"testing"
	"time"
)

// Issue 11 item 3 through the binary with the embedded default (SQLite, rule
// extractor): "Please call me Captain from now on" sets the profile's nickname,
// read back by the user, and no memory holds it; "以后叫我小王吧" does the same in
// Chinese; "stop calling me Captain" clears it again.
func TestIdentitySlots_goToTheProfileNeverToMemory(t *testing.T) {
	srv := Start(t, "ENGRAM_DATA_DIR="+t.TempDir(), "LONG_TERM_MEMORY_DEBOUNCE_SEC=0.2")

	type profileSlots struct {
		UserID   string `json:"user_id"`
		Nickname string `json:"nickname"`
		AIName   string `json:"ai_name"`
		Sources  map[string]struct {
			Channel        string `json:"channel"`
			ConversationID string `json:"conversation_id"`
			MessageID      string `json:"message_id"`
		} `json:"sources"`
		Prompt string `json:"prompt"`
	}
	say := func(user, conv, id, content string) messageView {
		t.Helper()
		if code := srv.Do(http.MethodPost, "/v1/users/"+user+"/messages", map[string]any{
			"conversation_id": conv, "message_id": id, "role": "user", "content": content}, nil); code != http.StatusAccepted {
			t.Fatalf("post %s: %d", id, code)
		}
		var v messageView
		wait.Until(t, 20*time.Second, id+" extracted (not PENDING)", func() bool {
			if code := srv.Do(http.MethodGet, "/v1/users/"+user+"/messages/"+id, nil, &v); code != http.StatusOK {
				t.Fatalf("get %s: %d", id, code)
			}
			return v.Status != "PENDING"
		})
		return v
	}
	profileOf := func(user string) profileSlots {
		t.Helper()
		var p profileSlots
		if code := srv.Do(http.MethodGet, "/v1/users/"+user+"/profile", nil, &p, "X-Acting-User", user); code != http.StatusOK {
			t.Fatalf("profile of %s: %d", user, code)
		}
		return p
	}
	noMemories := func(user string) {
		t.Helper()
		var list memoryList
		if code := srv.Do(http.MethodGet, "/v1/users/"+user+"/memories", nil, &list); code != http.StatusOK || len(list.Items) != 0 {
			t.Errorf("memories of %s: %d %+v, want none", user, code, list.Items)
		}
	}

	v := say("cap", "c1", "m1", "Please call me Captain from now on")
	if v.Status != "PROCESSED" || v.SkipReason != "routed_to_profile" || len(v.Events) != 0 {
		t.Errorf("m1 %+v, want PROCESSED routed_to_profile without memory events", v)
	}
	p := profileOf("cap")
	if src := p.Sources["nickname"]; p.Nickname != "Captain" || src.Channel != "extraction" || src.ConversationID != "c1" || src.MessageID != "m1" {
		t.Errorf("profile %+v", p)
	}
	noMemories("cap")

	say("wang", "c1", "w1", "以后叫我小王吧，你就叫小助手")
	if p := profileOf("wang"); p.Nickname != "小王" || p.AIName != "小助手" {
		t.Errorf("profile of wang %+v", p)
	}
	noMemories("wang")

	say("cap", "c2", "m2", "Stop calling me Captain.")
	if p := profileOf("cap"); p.Nickname != "" || p.Sources["nickname"].MessageID != "m2" {
		t.Errorf("after the clear: %+v", p)
	}
	noMemories("cap")

	// A counter-example sets nothing: no profile is stored for this user.
	say("lazy", "c1", "l1", "They call me lazy, but I never skip a run.")
	if code := srv.Do(http.MethodGet, "/v1/users/lazy/profile", nil, nil, "X-Acting-User", "lazy"); code != http.StatusNotFound {
		t.Errorf("profile of lazy: %d, want 404 (nothing set)", code)
	}
	srv.Stop()
}
