package llm

import (
	"bytes"
	"encoding/json"
	"errors"
	"math"
	"regexp"
	"strconv"
	"strings"
)

// Models wrap JSON in code fences, put prose around it, think aloud first
// (<think>…</think>), or answer a bare array instead of the object. The envelope is
// read tolerantly; the fields inside are validated strictly, one item at a time.

var (
	thinkBlock = regexp.MustCompile(`(?is)<think>.*?</think>`)
	codeFence  = regexp.MustCompile("(?s)```[a-zA-Z0-9_-]*\\s*\n?(.*?)```")
)

// maxJSONStarts bounds how many '{' or '[' positions are tried in one answer.
const maxJSONStarts = 64

// cleanAnswer removes reasoning blocks and a byte-order mark.
func cleanAnswer(answer string) string {
	answer = strings.TrimPrefix(answer, "\uFEFF")
	answer = thinkBlock.ReplaceAllString(answer, "")
	// An unclosed <think> (the answer was cut off) leaves nothing usable before it.
	if i := strings.Index(strings.ToLower(answer), "</think>"); i >= 0 {
		answer = answer[i+len("</think>"):]
	}
	return strings.TrimSpace(answer)
}

// findItems locates the JSON value in answer and returns the items of the list
// named by listKeys (or of a bare array); itemKeys recognise a single item given
// without the list. It returns an error saying what was wrong when no usable value
// is found.
func findItems(answer string, listKeys, itemKeys []string) ([]json.RawMessage, error) {
	text := cleanAnswer(answer)
	if text == "" {
		return nil, errors.New("the answer is empty")
	}
	var texts []string
	for _, m := range codeFence.FindAllStringSubmatch(text, -1) {
		texts = append(texts, m[1])
	}
	texts = append(texts, text)

	firstErr := errors.New("the answer contains no JSON object or array")
	for _, t := range texts {
		tried := 0
		for i := 0; i < len(t) && tried < maxJSONStarts; i++ {
			if t[i] != '{' && t[i] != '[' {
				continue
			}
			tried++
			var raw json.RawMessage
			dec := json.NewDecoder(strings.NewReader(t[i:]))
			if err := dec.Decode(&raw); err != nil {
				if tried == 1 {
					firstErr = errors.New("the answer is not valid JSON: " + err.Error())
				}
				continue
			}
			items, err := itemsOf(raw, listKeys, itemKeys)
			if err != nil {
				firstErr = err
				continue
			}
			return items, nil
		}
	}
	return nil, firstErr
}

func itemsOf(raw json.RawMessage, listKeys, itemKeys []string) ([]json.RawMessage, error) {
	raw = bytes.TrimSpace(raw)
	if len(raw) > 0 && raw[0] == '[' {
		var items []json.RawMessage
		if err := json.Unmarshal(raw, &items); err != nil {
			return nil, err
		}
		return items, nil
	}
	var obj map[string]json.RawMessage
	if err := json.Unmarshal(raw, &obj); err != nil {
		return nil, err
	}
	for k, v := range obj {
		for _, want := range listKeys {
			if !strings.EqualFold(k, want) {
				continue
			}
			if isNull(v) {
				return nil, nil
			}
			var items []json.RawMessage
			if err := json.Unmarshal(v, &items); err != nil {
				return nil, errors.New(`"` + want + `" is not an array`)
			}
			return items, nil
		}
	}
	for k := range obj {
		for _, want := range itemKeys {
			if strings.EqualFold(k, want) {
				return []json.RawMessage{raw}, nil
			}
		}
	}
	return nil, errors.New(`the JSON object has no "` + listKeys[0] + `" array`)
}

func isNull(raw json.RawMessage) bool {
	return len(bytes.TrimSpace(raw)) == 0 || string(bytes.TrimSpace(raw)) == "null"
}

// field is one JSON value read leniently: a missing or null value is unset, a
// value of the wrong JSON type is remembered as bad instead of failing the whole
// item, numbers may come as strings and strings as numbers.
type field struct {
	set bool
	raw json.RawMessage
}

func (f *field) UnmarshalJSON(b []byte) error {
	if isNull(b) {
		return nil
	}
	f.set = true
	f.raw = append(json.RawMessage(nil), b...)
	return nil
}

// text returns the value as a string (numbers and booleans as written).
func (f field) text() (string, bool) {
	if !f.set {
		return "", true
	}
	var s string
	if json.Unmarshal(f.raw, &s) == nil {
		return s, true
	}
	var n json.Number
	if json.Unmarshal(f.raw, &n) == nil {
		return n.String(), true
	}
	var b bool
	if json.Unmarshal(f.raw, &b) == nil {
		return strconv.FormatBool(b), true
	}
	return "", false
}

// number returns the value as a float64; "0.9" and 0.9 are the same.
func (f field) number() (float64, bool) {
	var x float64
	if json.Unmarshal(f.raw, &x) == nil {
		return x, !math.IsNaN(x) && !math.IsInf(x, 0)
	}
	var s string
	if json.Unmarshal(f.raw, &s) != nil {
		return 0, false
	}
	x, err := strconv.ParseFloat(strings.TrimSpace(s), 64)
	if err != nil || math.IsNaN(x) || math.IsInf(x, 0) {
		return 0, false
	}
	return x, true
}

// integer returns the value as an int when it is a whole number.
func (f field) integer() (int, bool) {
	x, ok := f.number()
	if !ok || x != math.Trunc(x) || math.Abs(x) > 1e9 {
		return 0, false
	}
	return int(x), true
}

// rawText is how a bad value is shown in a rejection reason.
func (f field) rawText() string {
	if !f.set {
		return "(missing)"
	}
	return snippet(string(f.raw), 40)
}
