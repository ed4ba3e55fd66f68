// Package textanalysis turns text into index terms for lexical search (BM25) and for
// the local embedder, so that a stored message and a later question about it are cut
// the same way. It implements ports.TextAnalyzer.
//
// What it does, in one pass over the runes and without regular expressions:
//   - lower-cases with Unicode rules and splits on anything that is not a letter, a
//     mark or a digit; an apostrophe inside a word is kept long enough to recognise
//     "don't" and "Caroline's", then dropped;
//   - drops English stop words (a general function-word list, see stopwords.go) and
//     the possessive 's;
//   - stems English words with Snowball (Porter2, github.com/kljensen/snowball), with
//     a bounded cache because the stemmer allocates and vocabularies repeat;
//   - keeps numbers as written ("2023", "3"), and words mixing letters and digits
//     ("mp3") whole;
//   - cuts Han, kana and Hangul runs into single characters and overlapping
//     bigrams ("喜欢绘画" → 喜, 喜欢, 欢, 欢绘, 绘, 绘画, 画); a Latin word inside
//     Chinese text ("我在学Python") stays a word.
//
// Why bigrams and not a dictionary segmenter (measured on the Chinese MemoryBank
// data, 15 users, 1,132 messages of about 50 characters, 100 probing questions;
// details in docs/BENCHMARKS.md): github.com/go-ego/gse needed 3 s (15 s on a busy
// machine) to load its dictionary and 190 MiB of heap, and 115–130 µs per message
// against about 2 µs here on the same 2-core machine; its retrieval was no better:
// over 40 questions judged by hand, bigrams found 4 answers that gse missed and gse
// 3 that bigrams missed. A segmenter also cuts a query and a stored message
// differently when their words differ slightly: "户外运动" is one token in a
// question and shares nothing with "户外活动" in the message, while bigrams and
// characters still share 户外, 户, 外 and 动. Single characters are added because
// one-character words are common in Chinese (书, 茶, 跑): with them a question's
// terms were found in the user's history 74% of the time against 52% for bigrams
// alone, and the top result improved on the judged sample.
//
// Limits: no accent folding ("café" and "cafe" differ), no stemming for languages
// other than English, no synonyms. It imports ports and the stemmer only; it must
// not import storage or the app.
package textanalysis
