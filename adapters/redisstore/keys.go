package redisstore

import (
	"encoding/json"
	"fmt"
	"net"
	"strconv"
	"strings"
	"time"

	"engram/domain/conversation"
	"engram/domain/memory"
	"engram/domain/session"
)

// encodeID makes an id safe inside a key: "%" and ":" are percent-encoded, so the
// separators of a key are never part of an id and two refs never share keys.
// Everything else stays readable.
var idEncoder = strings.NewReplacer("%", "%25", ":", "%3A")

func encodeID(id string) string { return idEncoder.Replace(id) }

var idDecoder = strings.NewReplacer("%3A", ":", "%25", "%")

func decodeID(s string) string { return idDecoder.Replace(s) }

// globEscaper protects an encoded id inside a SCAN MATCH pattern.
var globEscaper = strings.NewReplacer(`\`, `\\`, "*", `\*`, "?", `\?`, "[", `\[`, "]", `\]`)

// sessionKeys are the keys of one session and its entries in the shared sets.
type sessionKeys struct {
	messages, meta, summary, exchanges, claim string
	index, folds                              string
	indexMember, foldMember                   string
	// users and userIDs are the tenant's user sets (GET /v1/users), whose member
	// is the user id itself.
	users, userIDs, user string
}

func (s *Store) userBase(scope memory.Scope) string {
	return s.prefix + ":" + encodeID(scope.Tenant) + ":" + encodeID(scope.User)
}

func (s *Store) indexKey(scope memory.Scope) string { return s.userBase(scope) + ":sessions" }

func (s *Store) foldsKey() string { return s.prefix + ":folds" }

// The tenant's users: by last exchange (µs), to trim those with nothing left, and
// all at score 0, to list them in id order (ZRANGE BYLEX). A user's keys have at
// least four parts, so these three-part keys never meet one, whatever the user id.
func (s *Store) usersKey(tenant string) string { return s.prefix + ":" + encodeID(tenant) + ":users" }

func (s *Store) userIDsKey(tenant string) string {
	return s.prefix + ":" + encodeID(tenant) + ":user-ids"
}

func (s *Store) keys(ref session.Ref) sessionKeys {
	member := encodeID(ref.FlowID) + ":" + encodeID(ref.SessionID)
	base := s.userBase(ref.Scope) + ":" + member
	return sessionKeys{
		messages: base + ":messages", meta: base + ":meta", summary: base + ":summary",
		exchanges: base + ":exchanges", claim: base + ":fold",
		index: s.indexKey(ref.Scope), folds: s.foldsKey(),
		indexMember: member,
		foldMember:  encodeID(ref.Scope.Tenant) + ":" + encodeID(ref.Scope.User) + ":" + member,
		users:       s.usersKey(ref.Scope.Tenant), userIDs: s.userIDsKey(ref.Scope.Tenant), user: ref.Scope.User,
	}
}

// refFromFoldMember reads a fold queue member back.
func refFromFoldMember(m string) (session.Ref, error) {
	parts := strings.Split(m, ":")
	if len(parts) != 4 {
		return session.Ref{}, fmt.Errorf("redisstore: fold queue member %q is not tenant:user:flow:session", m)
	}
	return session.Ref{Scope: memory.Scope{Tenant: decodeID(parts[0]), User: decodeID(parts[1])},
		FlowID: decodeID(parts[2]), SessionID: decodeID(parts[3])}, nil
}

// refFromIndexMember reads an index member of scope's index back.
func refFromIndexMember(scope memory.Scope, m string) (session.Ref, bool) {
	flow, id, ok := strings.Cut(m, ":")
	if !ok || strings.Contains(id, ":") {
		return session.Ref{}, false
	}
	return session.Ref{Scope: scope, FlowID: decodeID(flow), SessionID: decodeID(id)}, true
}

// Times are stored as UTC text to the microsecond (readable with redis-cli) and,
// where Redis compares them (scores, claims), as Unix microseconds.
const timeLayout = "2006-01-02T15:04:05.000000Z07:00"

func formatTime(t time.Time) string { return t.UTC().Format(timeLayout) }

func parseTime(s string) (time.Time, error) {
	if s == "" {
		return time.Time{}, nil
	}
	t, err := time.Parse(timeLayout, s)
	return t.UTC(), err
}

func micros(t time.Time) string { return strconv.FormatInt(t.UnixMicro(), 10) }

func ms(d time.Duration) string { return strconv.FormatInt(max(d.Milliseconds(), 1), 10) }

// messageJSON is a message as the list holds it ({"role","content","ts"},
// plus its id and exchange). Its seq is its place: the list is always the most
// recent run of the session's messages, so the last one's seq is message_count.
type messageJSON struct {
	ID         string `json:"id"`
	ExchangeID string `json:"x"`
	Role       string `json:"role"`
	Content    string `json:"content"`
	At         string `json:"ts"`
}

func encodeMessage(m session.Message) (string, error) {
	b, err := json.Marshal(messageJSON{ID: m.ID, ExchangeID: m.ExchangeID, Role: string(m.Role), Content: m.Content, At: formatTime(m.At)})
	return string(b), err
}

func decodeMessage(s string, seq int64) (session.Message, error) {
	var j messageJSON
	if err := json.Unmarshal([]byte(s), &j); err != nil {
		return session.Message{}, fmt.Errorf("redisstore: a stored message is not JSON: %w", err)
	}
	at, err := parseTime(j.At)
	if err != nil {
		return session.Message{}, fmt.Errorf("redisstore: message %s: time: %w", j.ID, err)
	}
	return session.Message{ID: j.ID, ExchangeID: j.ExchangeID, Role: conversation.Role(j.Role), Content: j.Content, At: at, Seq: seq}, nil
}

// summaryJSON is the summary key's value.
type summaryJSON struct {
	Text      string `json:"text"`
	Version   int64  `json:"version"`
	UpdatedAt string `json:"updated_at"`
}

func encodeSummary(sum session.Summary) (string, error) {
	b, err := json.Marshal(summaryJSON{Text: sum.Text, Version: sum.Version, UpdatedAt: formatTime(sum.UpdatedAt)})
	return string(b), err
}

func decodeSummary(s string) (session.Summary, error) {
	var j summaryJSON
	if err := json.Unmarshal([]byte(s), &j); err != nil {
		return session.Summary{}, fmt.Errorf("redisstore: a stored summary is not JSON: %w", err)
	}
	at, err := parseTime(j.UpdatedAt)
	return session.Summary{Text: j.Text, Version: j.Version, UpdatedAt: at}, err
}

// metaFields reads the meta hash (HGETALL's flat list or map).
func metaFromMap(ref session.Ref, f map[string]string, held int) (session.Meta, int64, error) {
	if len(f) == 0 {
		return session.Meta{}, 0, nil
	}
	created, err1 := parseTime(f["created_at"])
	active, err2 := parseTime(f["last_active_at"])
	count, err3 := parseInt(f["message_count"])
	rev, err4 := parseInt(f["rev"])
	for _, err := range []error{err1, err2, err3, err4} {
		if err != nil {
			return session.Meta{}, 0, fmt.Errorf("redisstore: meta of %s: %w", ref, err)
		}
	}
	return session.Meta{Ref: ref, FlowName: f["flow_name"], CreatedAt: created, LastActiveAt: active,
		MessageCount: count, Held: held}, rev, nil
}

func parseInt(s string) (int64, error) {
	if s == "" {
		return 0, nil
	}
	return strconv.ParseInt(s, 10, 64)
}

func netDialer(timeout time.Duration) net.Dialer {
	return net.Dialer{Timeout: timeout, KeepAlive: time.Second}
}
