package contextbuild

import (
	"hash/maphash"
	"sync"

	"engram/domain/instruction"
)

// screenCacheSize bounds the verdicts kept: two generations of this many texts.
const screenCacheSize = 20_000

// screen tells instruction-like text (domain/instruction) and remembers its
// verdicts: a session's recent messages and a user's frequent episodes come back
// on every turn, and a verdict costs tens of microseconds a text. Texts are
// keyed by a hash with a seed chosen at random per process, so nobody can craft a
// text that takes another's verdict. Memory is bounded by two generations: when
// the current one is full it becomes the previous, and the oldest is dropped.
type screen struct {
	seed      maphash.Seed
	mu        sync.Mutex
	cur, prev map[uint64]bool
}

func newScreen() *screen {
	return &screen{seed: maphash.MakeSeed(), cur: map[uint64]bool{}}
}

// instructionLike reports whether text reads as an instruction to the assistant.
func (s *screen) instructionLike(text string) bool {
	key := maphash.String(s.seed, text)
	s.mu.Lock()
	v, ok := s.cur[key]
	if !ok {
		v, ok = s.prev[key]
	}
	s.mu.Unlock()
	if ok {
		return v
	}
	v = instruction.Classify(text).InstructionLike()
	s.mu.Lock()
	if len(s.cur) >= screenCacheSize {
		s.prev, s.cur = s.cur, make(map[uint64]bool, screenCacheSize)
	}
	s.cur[key] = v
	s.mu.Unlock()
	return v
}
