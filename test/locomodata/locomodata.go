// Package locomodata reads the LoCoMo benchmark file (../shared/datasets/locomo,
// snap-research/LoCoMo data/locomo10.json) the way the benchmarks use it: every turn
// with its session, speaker and date, and the questions of categories 1–4 whose
// evidence resolves to turns (malformed evidence ids are skipped, never repaired).
package locomodata

import (
	"encoding/json"
	"fmt"
	"os"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"time"
)

// Turn is one message of a conversation, as the protocol ingests it.
type Turn struct {
	ID      string // the dia_id, e.g. "D3:12"
	Session int    // session number; a session is one conversation in engram's terms
	Index   int    // position within the session, from 0
	Speaker string
	Content string // the turn's text, plus " [image: caption]" when it has one
	At      time.Time
}

// Text is the protocol's document text: speaker + ": " + text (+ image caption).
func (t Turn) Text() string { return t.Speaker + ": " + t.Content }

// Question is one category 1–4 question whose evidence resolves to turns.
type Question struct {
	Text     string
	Category int
	Evidence []string // dia_ids that exist in the conversation
}

// Conversation is one LoCoMo sample.
type Conversation struct {
	ID        string
	Turns     []Turn
	Questions []Question
}

// CategoryNames are the categories in this file's numbering.
var CategoryNames = map[int]string{1: "multi-hop", 2: "temporal", 3: "open-domain", 4: "single-hop"}

type rawSample struct {
	SampleID     string                     `json:"sample_id"`
	Conversation map[string]json.RawMessage `json:"conversation"`
	QA           []struct {
		Question string   `json:"question"`
		Evidence []string `json:"evidence"`
		Category int      `json:"category"`
	} `json:"qa"`
}

type rawTurn struct {
	Speaker     string `json:"speaker"`
	DiaID       string `json:"dia_id"`
	Text        string `json:"text"`
	BlipCaption string `json:"blip_caption"`
}

var sessionKey = regexp.MustCompile(`^session_(\d+)$`)

// Load reads the file and applies the protocol: every turn becomes a document;
// questions of categories 1–4 keep the evidence ids that resolve and are skipped
// when none does. Malformed ids are not repaired.
func Load(path string) ([]Conversation, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	var samples []rawSample
	if err := json.Unmarshal(data, &samples); err != nil {
		return nil, fmt.Errorf("parse %s: %w", path, err)
	}
	var convs []Conversation
	for _, s := range samples {
		c := Conversation{ID: s.SampleID}
		var sessions []int
		for key := range s.Conversation {
			if m := sessionKey.FindStringSubmatch(key); m != nil {
				n, _ := strconv.Atoi(m[1])
				sessions = append(sessions, n)
			}
		}
		sort.Ints(sessions)
		known := make(map[string]bool)
		for _, n := range sessions {
			var when string
			if raw, ok := s.Conversation[fmt.Sprintf("session_%d_date_time", n)]; ok {
				_ = json.Unmarshal(raw, &when)
			}
			at, err := time.Parse("3:04 pm on 2 January, 2006", strings.TrimSpace(when))
			if err != nil {
				return nil, fmt.Errorf("%s session %d: date %q: %w", s.SampleID, n, when, err)
			}
			var turns []rawTurn
			if err := json.Unmarshal(s.Conversation[fmt.Sprintf("session_%d", n)], &turns); err != nil {
				return nil, fmt.Errorf("%s session %d: %w", s.SampleID, n, err)
			}
			for i, t := range turns {
				content := t.Text
				if t.BlipCaption != "" {
					content += " [image: " + t.BlipCaption + "]"
				}
				c.Turns = append(c.Turns, Turn{
					ID: t.DiaID, Session: n, Index: i, Speaker: t.Speaker, Content: content,
					// Turns of a session share its date; a second per turn keeps their order.
					At: at.Add(time.Duration(i) * time.Second),
				})
				known[t.DiaID] = true
			}
		}
		for _, qa := range s.QA {
			if qa.Category < 1 || qa.Category > 4 {
				continue
			}
			var ev []string
			seen := make(map[string]bool)
			for _, id := range qa.Evidence {
				if known[id] && !seen[id] {
					ev = append(ev, id)
					seen[id] = true
				}
			}
			if len(ev) == 0 {
				continue
			}
			c.Questions = append(c.Questions, Question{Text: qa.Question, Category: qa.Category, Evidence: ev})
		}
		convs = append(convs, c)
	}
	return convs, nil
}
