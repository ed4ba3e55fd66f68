// Package pinyin romanises the Chinese characters of names for name resolution
// (ports.NameRomanizer), over github.com/mozillazg/go-pinyin and its dictionary of
// about 40,000 characters: "小明" becomes xiao, ming, so "Xiao Ming" finds 小明.
//
// It imports ports and the pinyin module only.
package pinyin

import (
	gopinyin "github.com/mozillazg/go-pinyin"

	"engram/ports"
)

// Romanizer is safe for concurrent use.
type Romanizer struct {
	args gopinyin.Args
}

var _ ports.NameRomanizer = (*Romanizer)(nil)

// New returns a romaniser of toneless pinyin, the most common reading of each
// character (surnames with a reading of their own are handled by domain/org).
func New() *Romanizer {
	args := gopinyin.NewArgs()
	args.Style = gopinyin.Normal
	args.Heteronym = false
	args.Fallback = func(rune, gopinyin.Args) []string { return nil }
	return &Romanizer{args: args}
}

// Syllable returns the pinyin of r without tone, or "" when r is not a Han
// character the dictionary knows.
func (r *Romanizer) Syllable(ch rune) string {
	ps := gopinyin.SinglePinyin(ch, r.args)
	if len(ps) == 0 {
		return ""
	}
	return ps[0]
}
