package memory

// Kind is what an item of a user's memory is, as the lexical and vector indexes
// store it and search returns it: one of their long-term memories, or one of
// their conversation messages (episodic memory).
type Kind string

const (
	KindMemory  Kind = "memory"
	KindMessage Kind = "message"
)
