package conversation_test

import (
	"errors"
	"strings"
	"testing"
	"time"

	"engram/domain/conversation"
	"engram/domain/invalid"
	"engram/domain/memory"
	"engram/domain/retry"
)

var (
	scope = memory.Scope{Tenant: "t1", User: "u1"}
	now   = time.Date(2026, 11, 30, 9, 0, 0, 0, time.FixedZone("CST", 8*3600))
)

func TestNew_userMessageWaitsForTheDebounce(t *testing.T) {
	t.Parallel()
	m, err := conversation.New(scope, conversation.Input{ConversationID: "c1", Role: " User ", Name: " Ann ", Content: "I like tea."}, "01SEQ", now, 12*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	if m.ID != "01SEQ" || m.Seq != "01SEQ" || m.Role != conversation.RoleUser || m.Name != "Ann" ||
		m.Status != conversation.StatusPending || !m.ProcessAfter.Equal(now.Add(12*time.Second)) ||
		!m.CreatedAt.Equal(now) || m.CreatedAt.Location() != time.UTC {
		t.Errorf("%+v", m)
	}
}

func TestNew_assistantAndSystemMessagesAreNeverSources(t *testing.T) {
	t.Parallel()
	for _, role := range []string{"assistant", "system"} {
		m, err := conversation.New(scope, conversation.Input{ConversationID: "c1", MessageID: "a1", Role: role, Content: "Noted."}, "01SEQ", now, time.Minute)
		if err != nil {
			t.Fatal(err)
		}
		if m.Status != conversation.StatusSkipped || m.SkipReason != conversation.SkipNotFromUser || !m.ProcessAfter.IsZero() || m.ID != "a1" {
			t.Errorf("%s: %+v", role, m)
		}
	}
}

func TestNew_reportsEveryBadField(t *testing.T) {
	t.Parallel()
	_, err := conversation.New(scope, conversation.Input{ConversationID: "", MessageID: strings.Repeat("x", 129),
		Role: "robot", Name: strings.Repeat("n", 129), Content: " "}, "01SEQ", now, 0)
	var ve *invalid.Error
	if !errors.As(err, &ve) {
		t.Fatalf("err = %v", err)
	}
	var fields []string
	for _, f := range ve.Fields {
		fields = append(fields, f.Field)
	}
	if got := strings.Join(fields, ","); got != "conversation_id,message_id,role,name,content" {
		t.Errorf("fields %s", got)
	}
}

func TestSameAs_ignoresTimesButNotContent(t *testing.T) {
	t.Parallel()
	in := conversation.Input{ConversationID: "c1", MessageID: "m1", Role: "user", Content: "I like tea."}
	a, _ := conversation.New(scope, in, "01A", now, 0)
	b, _ := conversation.New(scope, in, "01B", now.Add(time.Hour), 0)
	if !a.SameAs(b) {
		t.Error("a retry later is not the same message")
	}
	in.Content = "I like coffee."
	c, _ := conversation.New(scope, in, "01C", now, 0)
	if a.SameAs(c) {
		t.Error("other content is the same message")
	}
}

func TestFailed_backsOffExponentiallyThenGivesUp(t *testing.T) {
	t.Parallel()
	p := retry.Policy{MaxAttempts: 4, BaseDelay: 30 * time.Second, MaxDelay: 90 * time.Second}
	m, _ := conversation.New(scope, conversation.Input{ConversationID: "c", Role: "user", Content: "x y"}, "01S", now, 0)
	var waits []time.Duration
	for range 4 {
		m = m.Failed("llm: unavailable", now, p)
		if m.WillRetry() {
			waits = append(waits, m.ProcessAfter.Sub(now))
		}
	}
	if len(waits) != 3 || waits[0] != 30*time.Second || waits[1] != time.Minute || waits[2] != 90*time.Second {
		t.Errorf("waits %v, want 30s 1m 1m30s (capped)", waits)
	}
	if m.Status != conversation.StatusFailed || m.Attempts != 4 || m.WillRetry() || m.Error != "llm: unavailable" {
		t.Errorf("after max attempts: %+v", m)
	}
	m = m.Processed(now)
	if m.Status != conversation.StatusProcessed || m.Error != "" || m.Attempts != 5 {
		t.Errorf("processed after failures: %+v", m)
	}
}

func TestFailed_clipsLongErrors(t *testing.T) {
	t.Parallel()
	m := conversation.Message{}.Failed(strings.Repeat("é", 5000), now, retry.Policy{})
	if n := len([]rune(m.Error)); n != conversation.MaxErrorLen {
		t.Errorf("error kept %d characters", n)
	}
}

func TestBefore_ordersByTimeThenArrival(t *testing.T) {
	t.Parallel()
	a := conversation.Message{CreatedAt: now, Seq: "02"}
	b := conversation.Message{CreatedAt: now, Seq: "01"}
	c := conversation.Message{CreatedAt: now.Add(-time.Second), Seq: "03"}
	if !conversation.Before(b, a) || conversation.Before(a, b) || !conversation.Before(c, b) {
		t.Error("order")
	}
}

func TestNew_refusesTimesOutsideTheEpochAndTheClockSkew(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		at   time.Time
		ok   bool
	}{
		{"not given", time.Time{}, true},
		{"the epoch", conversation.Epoch, true},
		{"year 1", time.Date(1, 3, 1, 0, 0, 0, 0, time.UTC), false},
		{"a second before 1970", conversation.Epoch.Add(-time.Second), false},
		{"a day ahead", now.Add(conversation.MaxClockSkew), true},
		{"a day and a second ahead", now.Add(conversation.MaxClockSkew + time.Second), false},
		{"year 2999", time.Date(2999, 1, 1, 0, 0, 0, 0, time.UTC), false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			_, err := conversation.New(scope, conversation.Input{ConversationID: "c1", Role: "user", Content: "hi", CreatedAt: tt.at}, "01SEQ", now, 0)
			if tt.ok != (err == nil) {
				t.Fatalf("created_at %v: err = %v, want ok %v", tt.at, err, tt.ok)
			}
			var ve *invalid.Error
			if err != nil && (!errors.As(err, &ve) || ve.Fields[0].Field != "created_at") {
				t.Errorf("err = %v, want a validation error on created_at", err)
			}
		})
	}
}

func TestNew_refusesBlankIDsAndNUL(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name  string
		in    conversation.Input
		field string
	}{
		{"blank conversation id", conversation.Input{ConversationID: "   ", Role: "user", Content: "hi"}, "conversation_id"},
		{"blank message id", conversation.Input{ConversationID: "c1", MessageID: " \t", Role: "user", Content: "hi"}, "message_id"},
		{"NUL in content", conversation.Input{ConversationID: "c1", Role: "user", Content: "a\x00b"}, "content"},
		{"NUL in name", conversation.Input{ConversationID: "c1", Role: "user", Name: "A\x00n", Content: "hi"}, "name"},
		{"NUL in message id", conversation.Input{ConversationID: "c1", MessageID: "m\x00", Role: "user", Content: "hi"}, "message_id"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			_, err := conversation.New(scope, tt.in, "01SEQ", now, 0)
			var ve *invalid.Error
			if !errors.As(err, &ve) || ve.Fields[0].Field != tt.field {
				t.Errorf("err = %v, want a validation error on %s", err, tt.field)
			}
		})
	}
}

func TestValidateSaidAt_refusesTheZeroTimeAClientSent(t *testing.T) {
	t.Parallel()
	if err := conversation.ValidateSaidAt("created_at", time.Time{}, now); err == nil {
		t.Error("0001-01-01T00:00:00Z was accepted")
	}
}

func TestIndexText_nameContentAndDate(t *testing.T) {
	t.Parallel()
	said := time.Date(2023, 5, 8, 23, 30, 0, 0, time.FixedZone("CST", 8*3600)) // 15:30 UTC
	tests := []struct {
		name string
		m    conversation.Message
		want string
	}{
		{"with a speaker", conversation.Message{Name: "Melanie", Content: "Yes, twice last year!", CreatedAt: said}, "Melanie: Yes, twice last year! 8 May 2023"},
		{"without one", conversation.Message{Content: "我喜欢绘画", CreatedAt: said}, "我喜欢绘画 8 May 2023"},
	}
	for _, tt := range tests {
		if got := tt.m.IndexText(); got != tt.want {
			t.Errorf("%s: IndexText = %q, want %q (the date in UTC)", tt.name, got, tt.want)
		}
	}
}
