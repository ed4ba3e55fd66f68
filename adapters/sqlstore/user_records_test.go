package sqlstore

import (
	"encoding/json"
	"errors"
	"reflect"
	"slices"
	"testing"
	"time"

	"engram/adapters/clock"
	"engram/domain/addevent"
	"engram/domain/agentconv"
	"engram/domain/invalid"
	"engram/domain/memory"
	"engram/domain/profile"
	"engram/ports"
)

// seedUser stores a memory with two changes, an activity event and an audit
// entry about the user: rows of three sections, a time, a bool, JSON columns.
func seedUser(t *testing.T, db *DB, scope memory.Scope) {
	t.Helper()
	ctx := testContext(t)
	at := time.Date(2026, 11, 30, 9, 0, 0, 123456000, time.UTC)
	eventIDs := []string{"01JZDIETEVENT0000000000001", "01JZDIETEVENT0000000000002"}
	for i, content := range []string{"vegetarian", "vegetarian, eats eggs"} {
		_, err := NewMemoryStore(db).Update(ctx, scope, memory.MustParseKey("diet"), func(cur *memory.Memory) (memory.Change, error) {
			d, err := memory.ParseDraft(memory.DraftInput{Type: "preference", Content: content}, memory.Source{Channel: memory.ChannelTool})
			if err != nil {
				return memory.Change{}, err
			}
			m, err := memory.New("01JZDIET000000000000000000", scope, memory.MustParseKey("diet"), d, memory.Policy{}, at.Add(time.Duration(i)*time.Minute))
			if err != nil {
				return memory.Change{}, err
			}
			return memory.Change{Memory: m, Event: memory.NewEvent(eventIDs[i], memory.OpAdd, cur, m)}, nil
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	hours := 2.5
	a, err := profile.NewActivity(scope, profile.ActivityInput{EventID: "t1", Kind: "task_completed", At: at, DurationH: &hours}, at)
	if err != nil {
		t.Fatal(err)
	}
	if _, _, err := NewActivityStore(db).RecordActivity(ctx, a); err != nil {
		t.Fatal(err)
	}
	if err := NewReportStore(db).AppendAudit(ctx, ports.AuditEntry{ID: "01JZAUDIT00000000000000000", Tenant: scope.Tenant, At: at,
		Actor: "boss", Action: "profile.read", TargetUser: scope.User}); err != nil {
		t.Fatal(err)
	}
	conv := agentconv.Conversation{ID: "conv_01jzdiet", Scope: scope, CreatedAt: at, Metadata: map[string]string{"topic": "菜单"}}
	if err := NewAgentConversationStore(db).Create(ctx, conv, []agentconv.Item{
		{ID: "msg_1", Type: "message", Role: agentconv.RoleUser, Text: "I am vegetarian", Raw: []byte(`{"role":"user","content":"I am vegetarian"}`)},
		{ID: "fc_1", Type: "function_call", Raw: []byte(`{"type":"function_call","arguments":"{\"q\":\"<é>\"}"}`)},
	}); err != nil {
		t.Fatal(err)
	}
	add, err := addevent.New("01JZADD0000000000000000000", scope, "c1", []string{"m1", "m2"}, at)
	if err != nil {
		t.Fatal(err)
	}
	if err := NewAddEventStore(db).Create(ctx, add); err != nil {
		t.Fatal(err)
	}
}

// A user moved between two databases, of either dialect, exports as the same
// document; a second import writes nothing; a field no table has is refused.
func testUserRecordsMove(t *testing.T, from, to func(testing.TB) *DB) {
	ctx := testContext(t)
	scope := memory.Scope{Tenant: "acme", User: "vera"}
	src, dst := from(t), to(t)
	seedUser(t, src, scope)
	doc, err := NewUserRecords(src, clock.System{}).ExportUser(ctx, scope)
	if err != nil {
		t.Fatal(err)
	}
	if len(doc[ports.RecordMemories]) != 1 || len(doc[ports.RecordMemoryHistory]) != 2 || len(doc[ports.RecordActivity]) != 1 || len(doc[ports.RecordAudit]) != 1 ||
		len(doc[ports.RecordAgentConversations]) != 1 || len(doc[ports.RecordAgentItems]) != 2 || len(doc[ports.RecordAdds]) != 1 {
		t.Fatalf("export: %v", doc)
	}
	m := doc[ports.RecordMemories][0]
	if _, ok := m["vector_status"]; ok || m["is_active"] != true || m["importance"] != int64(3) || m["content"] != "vegetarian, eats eggs" {
		t.Errorf("memory record %v", m)
	}
	// Through JSON, as the HTTP import receives it.
	raw, err := json.Marshal(doc)
	if err != nil {
		t.Fatal(err)
	}
	var sent map[string][]ports.Record
	if err := json.Unmarshal(raw, &sent); err != nil {
		t.Fatal(err)
	}
	written, err := NewUserRecords(dst, clock.System{}).ImportUser(ctx, scope, sent)
	if err != nil {
		t.Fatal(err)
	}
	if written[ports.RecordMemories] != 1 || written[ports.RecordMemoryHistory] != 2 || written[ports.RecordAudit] != 1 ||
		written[ports.RecordAgentConversations] != 1 || written[ports.RecordAgentItems] != 2 || written[ports.RecordAdds] != 1 {
		t.Errorf("import wrote %v", written)
	}
	if got, err := NewAddEventStore(dst).Get(ctx, scope.Tenant, "01JZADD0000000000000000000"); err != nil ||
		!slices.Equal(got.MessageIDs, []string{"m1", "m2"}) || got.ConversationID != "c1" {
		t.Errorf("the imported add: %+v, %v", got, err)
	}
	if it, err := NewAgentConversationStore(dst).Item(ctx, scope, "conv_01jzdiet", "fc_1"); err != nil ||
		string(it.Raw) != `{"type":"function_call","arguments":"{\"q\":\"<é>\"}"}` {
		t.Errorf("the imported item: %s, %v", it.Raw, err)
	}
	var queued []time.Time
	if err := dst.bun.NewRaw("SELECT vector_queued_at FROM long_term_memories WHERE vector_status = 'DIRTY' AND vector_queued_at IS NOT NULL").Scan(ctx, &queued); err != nil || len(queued) != 1 {
		t.Errorf("the imported memory is not queued for its vector: %v %v", queued, err)
	}
	back, err := NewUserRecords(dst, clock.System{}).ExportUser(ctx, scope)
	if err != nil {
		t.Fatal(err)
	}
	a, _ := json.Marshal(doc)
	b, _ := json.Marshal(back)
	var da, db2 any
	_ = json.Unmarshal(a, &da)
	_ = json.Unmarshal(b, &db2)
	if !reflect.DeepEqual(da, db2) {
		t.Errorf("moved user exports differently:\nfrom %s\nto   %s", a, b)
	}
	again, err := NewUserRecords(dst, clock.System{}).ImportUser(ctx, scope, sent)
	if err != nil {
		t.Fatal(err)
	}
	for section, n := range again {
		if n != 0 {
			t.Errorf("a repeated import wrote %d %s", n, section)
		}
	}
	sent[ports.RecordMemories][0]["colour"] = "blue"
	_, err = NewUserRecords(dst, clock.System{}).ImportUser(ctx, scope, sent)
	var ve *invalid.Error
	if !errors.As(err, &ve) || ve.Fields[0].Field != "memories[0].colour" {
		t.Errorf("an unknown field: %v", err)
	}
}

func TestUserRecords_moveBetweenDatabases_SQLite(t *testing.T) {
	t.Parallel()
	testUserRecordsMove(t, openSQLiteForTest, openSQLiteForTest)
}

func TestUserRecords_moveBetweenDatabases_Postgres(t *testing.T) {
	t.Parallel()
	testUserRecordsMove(t, openPostgresForTest, openPostgresForTest)
}

func TestUserRecords_moveFromSQLiteToPostgres_Postgres(t *testing.T) {
	t.Parallel()
	testUserRecordsMove(t, openSQLiteForTest, openPostgresForTest)
}
