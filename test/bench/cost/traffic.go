package main

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
)

// day is one MemoryBank user's conversation of one day.
type day struct {
	user, date string
	turns      []turn
}

type turn struct{ Query, Response string }

// loadBank reads a MemoryBank file, users and days in order.
func loadBank(dir, file string) ([]day, error) {
	raw, err := os.ReadFile(filepath.Join(dir, file))
	if err != nil {
		return nil, fmt.Errorf("MemoryBank data (the eval_data of zhongwanjun/MemoryBank-SiliconFriend; -data): %w", err)
	}
	var users map[string]struct {
		History map[string][]struct {
			Query    string `json:"query"`
			Response string `json:"response"`
		} `json:"history"`
	}
	if err := json.Unmarshal(raw, &users); err != nil {
		return nil, err
	}
	var out []day
	for name, u := range users {
		for date, turns := range u.History {
			d := day{user: strings.ReplaceAll(strings.TrimSpace(name), " ", "_"), date: date}
			for _, t := range turns {
				d.turns = append(d.turns, turn{t.Query, t.Response})
			}
			if len(d.turns) > 0 {
				out = append(out, d)
			}
		}
	}
	sort.Slice(out, func(i, j int) bool {
		if out[i].user != out[j].user {
			return out[i].user < out[j].user
		}
		return out[i].date < out[j].date
	})
	return out, nil
}

// message is one posted message, as the API takes it.
type message struct {
	ConversationID string `json:"conversation_id"`
	MessageID      string `json:"message_id"`
	Role           string `json:"role"`
	Content        string `json:"content"`
}

// exchange is a turn as the agent posts it after answering: the user's message
// and the assistant's reply.
func exchange(conv, id string, t turn) []message {
	return []message{
		{ConversationID: conv, MessageID: id + "/u", Role: "user", Content: t.Query},
		{ConversationID: conv, MessageID: id + "/a", Role: "assistant", Content: t.Response},
	}
}
