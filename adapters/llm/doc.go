// Package llm is engram's adapter to large language models, over langchaingo: a
// chat client for OpenAI-compatible endpoints and Ollama with retries, the stage-1
// Extractor and stage-2 Refiner of the extraction pipeline, an Embedder for the
// vector index, and a Summarizer for session summaries.
//
// What the model answers is never trusted: answers are read tolerantly (code
// fences, prose around the JSON, a bare array, numbers as strings) and validated
// field by field with the domain's own rules; an item that fails is dropped with a
// reason, an answer that cannot be read at all is an ErrBadOutput. Endpoint
// failures come back wrapped in ports.ErrUnavailable. Prompts live in
// configs/prompts, where operators can override them.
//
// Only bootstrap imports this package; it imports domain, ports, configs/prompts
// and langchaingo, never another adapter.
package llm
