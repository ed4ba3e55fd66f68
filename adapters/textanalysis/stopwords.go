package textanalysis

// englishStopWords is a general English function-word list (articles, pronouns,
// auxiliaries, prepositions, conjunctions, question words and the common
// contractions, with an apostrophe and in the unambiguous forms people type without
// one: "shell", "ill", "wed" and "won" are words, so only "she'll" etc. are listed).
// It is not tuned to any data set: every word here is one that carries no topic.
var englishStopWords = toSet(`
a about above after again against all also am an and any are as at
be because been before being below between both but by
can cannot could
did do does doing down during
each either
few for from further
had has have having he her here hers herself him himself his how
i if in into is it its itself
just
me might more most much must my myself
neither no nor not now
of off on once only or other ought our ours ourselves out over own
same shall she should so some such
than that the their theirs them themselves then there these they this those
through to too
under until up upon us
very
was we were what when where which while who whom why will with would
you your yours yourself yourselves
aren't can't couldn't didn't doesn't don't hadn't hasn't haven't he'd he'll he's
here's how's i'd i'll i'm i've isn't it'd it'll it's let's mightn't mustn't
needn't shan't she'd she'll she's shouldn't that's there's they'd they'll
they're they've wasn't we'd we'll we're we've weren't what's when's where's
who's why's won't wouldn't you'd you'll you're you've
arent couldnt didnt doesnt dont hasnt havent im isnt ive shouldnt theyre
theyve wasnt werent wouldnt youre youve
`)

func toSet(words string) map[string]string {
	set := make(map[string]string)
	start := -1
	for i := 0; i <= len(words); i++ {
		if i == len(words) || words[i] == ' ' || words[i] == '\n' {
			if start >= 0 {
				set[words[start:i]] = words[start:i]
				start = -1
			}
			continue
		}
		if start < 0 {
			start = i
		}
	}
	return set
}

// IsStopWord reports whether the lower-cased word (apostrophes written as ') is an
// English stop word.
func IsStopWord(word string) bool {
	_, ok := englishStopWords[word]
	return ok
}

// stopWord returns the interned stop word equal to word, so emitting it allocates
// nothing.
func stopWord(word []byte) (string, bool) {
	s, ok := englishStopWords[string(word)] // no allocation for a map lookup
	return s, ok
}
