package memory

import "time"

// A fold makes two memories that say the same thing one: the copy ends (FoldOut,
// a DELETE) and the survivor records the merge (Fold, a MERGE). Extraction folds
// the redundant copies a write leaves, consolidation the key variants and the
// near-duplicates it finds.

// FoldOut is the change that ends copyOf (nil: the key holds nothing) when it is
// folded into another memory: a DELETE. ok is false when it is not live any
// more, so there is nothing to fold.
func FoldOut(copyOf *Memory, src Source, ids func() string, now time.Time) (c Change, ok bool) {
	if copyOf == nil || !copyOf.IsLive(now) {
		return Change{}, false
	}
	next := copyOf.Deactivate(src, now)
	return Change{Memory: next, Event: NewEvent(ids(), OpDelete, copyOf, next)}, true
}

// Fold is the change on survivor (nil: the key holds nothing) once copyOf is
// folded into it: a MERGE to what Merged says of the two. When says is set (a
// key variant that said it later), the survivor takes its type and content. ok
// is false when the survivor is not live any more.
func Fold(survivor *Memory, copyOf Memory, says *Memory, src Source, ids func() string, now time.Time) (c Change, ok bool) {
	if survivor == nil || !survivor.IsLive(now) {
		return Change{}, false
	}
	target := Merged(survivor.s, copyOf.s, now)
	if says != nil {
		target.Type, target.Content = says.s.Type, says.s.Content
	}
	next := survivor.RevertTo(target, src, now)
	return Change{Memory: next, Event: NewEvent(ids(), OpMerge, survivor, next)}, true
}
