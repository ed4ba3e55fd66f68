// Package logbuf is an io.Writer that tests can read while something writes to it:
// a logger's handler, a child process's output.
package logbuf

import (
	"bytes"
	"sync"
)

// Buffer collects writes; it is safe for concurrent use.
type Buffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *Buffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

// String is everything written so far.
func (b *Buffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}
