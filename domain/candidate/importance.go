package candidate

import (
	"strings"

	"engram/domain/memory"
)

// ImportanceBand is the importance a family of memories must have, whatever the
// extractor proposed: what the assistant must never get wrong (health, allergies,
// diet, safety, how to answer the user, explicit always/never rules) is at least
// 4, so it is a standing memory and is written before the rest of its message;
// small talk (likes, favourites, habits) is at most 3.
type ImportanceBand struct {
	Family   string // a key family: the key itself or its first segments ("allergy" holds allergy.peanuts)
	Min, Max int
	Why      string
}

// ImportanceBands are the bands by key family, most specific first. A
// constraint (a standing rule for the assistant) is at least 4 whatever its key.
var ImportanceBands = []ImportanceBand{
	{"allergy", 5, 5, "an allergy the assistant forgets can hurt the user"},
	{"health", 4, 5, "a condition (diabetes, asthma, pregnancy…) shapes every suggestion"},
	{"medication", 4, 5, "what the user takes, and what must not be combined with it"},
	{"safety", 4, 5, "a safety constraint"},
	{"diet", 4, 5, "a diet (vegan, halal, keto…) applies to every meal suggested"},
	{"food.avoids", 4, 5, "what the user does not eat"},
	{"reply", 4, 5, "how to answer the user: language, length, style"},
	{"rule", 4, 5, "an explicit always/never rule"},
	{"favorite", 1, 3, "a favourite thing is small talk"},
	{"habit", 1, 3, "a habit is context, not a constraint"},
	{"*.likes", 1, 3, "a like is small talk"},
	{"*.dislikes", 1, 3, "a dislike is small talk"},
	{"*.prefers", 1, 3, "a taste is small talk"},
}

// constraintMin is the least importance of any constraint.
const constraintMin = 4

// CalibrateImportance puts c's importance into its family's band (a missing one is
// memory.DefaultImportance first). Profile slots and deletions are left as they
// are: neither becomes a memory with an importance.
func CalibrateImportance(c Candidate) Candidate {
	if c.IsSlot() || c.Op == OpDelete {
		return c
	}
	imp := c.Importance
	if imp == 0 {
		imp = memory.DefaultImportance
	}
	if b, ok := BandOf(c.Key); ok {
		imp = min(max(imp, b.Min), b.Max)
	}
	if c.Type == memory.TypeConstraint {
		imp = max(imp, constraintMin)
	}
	c.Importance = min(max(imp, memory.MinImportance), memory.MaxImportance)
	return c
}

// BandOf is the band of a key, if its family has one.
func BandOf(key string) (ImportanceBand, bool) {
	key = strings.ToLower(strings.TrimSpace(key))
	for _, b := range ImportanceBands {
		if inFamily(key, b.Family) {
			return b, true
		}
	}
	return ImportanceBand{}, false
}

// inFamily reports whether key is family or below it; "*.likes" matches a likes
// segment under any area (food.likes.sushi, music.likes).
func inFamily(key, family string) bool {
	if rest, ok := strings.CutPrefix(family, "*."); ok {
		_, after, found := strings.Cut(key, ".")
		return found && (after == rest || strings.HasPrefix(after, rest+"."))
	}
	return key == family || strings.HasPrefix(key, family+".")
}
