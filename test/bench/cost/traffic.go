package main

import "engram/test/memorybank"

// message is one posted message, as the API takes it.
type message struct {
	ConversationID string `json:"conversation_id"`
	MessageID      string `json:"message_id"`
	Role           string `json:"role"`
	Content        string `json:"content"`
}

// exchange is a turn as the agent posts it after answering: the user's message
// and the assistant's reply.
func exchange(conv, id string, t memorybank.Turn) []message {
	return []message{
		{ConversationID: conv, MessageID: id + "/u", Role: "user", Content: t.Query},
		{ConversationID: conv, MessageID: id + "/a", Role: "assistant", Content: t.Response},
	}
}
