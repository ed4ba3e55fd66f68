package secret

import "strings"

// digitsOf keeps the ASCII digits of s.
func digitsOf(s string) string {
	var b strings.Builder
	for _, r := range s {
		if r >= '0' && r <= '9' {
			b.WriteRune(r)
		}
	}
	return b.String()
}

// luhn reports whether the digits pass the Luhn check of payment card numbers.
func luhn(digits string) bool {
	sum, double := 0, false
	for i := len(digits) - 1; i >= 0; i-- {
		d := int(digits[i] - '0')
		if double {
			d *= 2
			if d > 9 {
				d -= 9
			}
		}
		sum += d
		double = !double
	}
	return len(digits) > 0 && sum%10 == 0
}

// keepEnds masks every letter and digit of s with '*' except the first head and
// the last tail of them; separators stay, so the mask keeps the value's layout.
func keepEnds(s string, head, tail int) string {
	n := 0
	for _, r := range s {
		if isAlnum(r) {
			n++
		}
	}
	var b strings.Builder
	i := 0
	for _, r := range s {
		if !isAlnum(r) {
			b.WriteRune(r)
			continue
		}
		if i < head || i >= n-tail {
			b.WriteRune(r)
		} else {
			b.WriteByte('*')
		}
		i++
	}
	return b.String()
}
