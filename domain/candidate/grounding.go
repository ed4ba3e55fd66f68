package candidate

import "strings"

// MinGrounding is the share of a candidate's content terms that must occur in what
// the user said for Grounded to accept it.
//
// Why one half: an extractor rewrites the user's words into a third-person statement
// ("I can't stand cilantro" → "User dislikes cilantro"). The frame it adds ("User",
// "prefers", "用户") is not a term at all, and a paraphrase keeps the things the
// memory is about (cilantro, 花生, Berlin) while it may swap the verb; so a faithful
// candidate shares most of its terms, typically two thirds or more, and at least half
// even when one of two terms is a synonym. A candidate built from the assistant's
// text ("User likes The Little Prince" after the assistant recommended it) shares
// almost none, since the user only said "thanks, I'll take a look".
const MinGrounding = 0.5

// Grounding is the result of comparing a candidate with the user's messages.
type Grounding struct {
	Score    float64 // share of the content's terms found in the user's words
	Terms    int     // how many content terms there were
	Judgable bool    // false when the texts cannot be compared lexically
}

// Ground measures how much of content is supported by the user's texts.
//
// It cannot judge, and says so, when the content has no terms or is written in
// another script than the user's messages (an English memory of a Chinese chat):
// lexical overlap says nothing across languages, and rejecting those would reject
// every translated memory.
func Ground(content string, userTexts []string) Grounding {
	ct := Terms(content)
	if len(ct) == 0 {
		return Grounding{}
	}
	joined := strings.Join(userTexts, "\n")
	if (cjkShare(content) >= 0.5) != (cjkShare(joined) >= 0.5) {
		return Grounding{Terms: len(ct)}
	}
	ut := Terms(joined)
	found := 0
	for t := range ct {
		if ut[t] {
			found++
		}
	}
	return Grounding{Score: float64(found) / float64(len(ct)), Terms: len(ct), Judgable: true}
}

// Grounded reports whether the candidate's content is supported by what the user
// said: at least MinGrounding of its terms occur in userTexts. Deletions need no
// support beyond their key, and content that cannot be judged lexically (see Ground)
// is given the benefit of the doubt.
func Grounded(c Candidate, userTexts []string) bool {
	if c.Op == OpDelete {
		return true
	}
	g := Ground(c.Content, userTexts)
	if !g.Judgable {
		return true
	}
	return g.Score >= MinGrounding
}
