package memory

// IndexTextOf is the text a memory of this type, key and content is embedded by
// ("[{memory_type}] {memory_key}: {content}"). Extraction embeds its
// candidates by the same text, so the indexer can reuse their vectors.
func IndexTextOf(t Type, key Key, content string) string {
	return "[" + string(t) + "] " + key.value + ": " + content
}
