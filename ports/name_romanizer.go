package ports

// NameRomanizer romanises Chinese characters of names, so "Xiao Ming" finds 小明.
type NameRomanizer interface {
	// Syllable returns the toneless pinyin of a Han character ("明" → "ming"), or
	// "" when it has none.
	Syllable(r rune) string
}
