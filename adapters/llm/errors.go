package llm

import (
	"errors"
	"fmt"
	"strings"
	"unicode/utf8"
)

// ErrBadOutput marks an answer the model gave that cannot be used: not JSON, not
// the expected shape, empty, or vectors of the wrong length. Retrying the same
// request soon rarely helps; the pipeline marks the message FAILED with the reason
// and writes nothing.
var ErrBadOutput = errors.New("unusable model output")

// ErrRejected marks a request the endpoint refused for a reason retrying will not
// fix (HTTP 4xx other than 408/409/425/429: bad key, unknown model, context too
// long). It always comes wrapped together with ports.ErrUnavailable, because for
// engram the LLM cannot answer either way; ErrRejected tells an operator to look at
// the configuration rather than wait. Its Rejected method lets packages that must
// not import adapters (search's circuit breaker, which must not count a refusal as
// the endpoint being down) recognise it with errors.As on an interface{ Rejected()
// bool } of their own.
var ErrRejected error = rejectedError{}

type rejectedError struct{}

func (rejectedError) Error() string  { return "request rejected by the LLM endpoint" }
func (rejectedError) Rejected() bool { return true }

// BadOutputError is an ErrBadOutput with what was wrong and how the answer began.
type BadOutputError struct {
	Stage   string // "extract", "refine", "summarize", "embed"
	Reason  string
	Snippet string // the start of the model's answer, for the message's error field
}

func (e *BadOutputError) Error() string {
	if e.Snippet == "" {
		return fmt.Sprintf("llm: %s: %s: %s", e.Stage, ErrBadOutput, e.Reason)
	}
	return fmt.Sprintf("llm: %s: %s: %s; the answer began %q", e.Stage, ErrBadOutput, e.Reason, e.Snippet)
}

// Is makes errors.Is(err, ErrBadOutput) true.
func (e *BadOutputError) Is(target error) bool { return target == ErrBadOutput }

// BadOutput reports true. Packages that must not import adapters (app/…) can
// recognise the kind with errors.As on an interface{ BadOutput() bool } of their own.
func (e *BadOutputError) BadOutput() bool { return true }

func badOutput(stage, answer, format string, args ...any) *BadOutputError {
	return &BadOutputError{Stage: stage, Reason: fmt.Sprintf(format, args...), Snippet: snippet(answer, 160)}
}

// Rejection is a candidate or decision the adapter left out, and why. It is not an
// error: one bad item never spoils the others.
type Rejection struct {
	Index  int    // position in the model's answer, from 0
	Key    string // the key the model gave, when it gave one
	Reason string
}

func (r Rejection) String() string {
	if r.Key == "" {
		return fmt.Sprintf("#%d: %s", r.Index, r.Reason)
	}
	return fmt.Sprintf("#%d (%s): %s", r.Index, r.Key, r.Reason)
}

// snippet returns the first n characters of s on one line.
func snippet(s string, n int) string {
	s = strings.Join(strings.Fields(s), " ")
	if utf8.RuneCountInString(s) <= n {
		return s
	}
	return string([]rune(s)[:n]) + "…"
}
