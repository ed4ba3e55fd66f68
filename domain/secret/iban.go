package secret

import (
	"math/big"
	"strings"
)

// iban: international bank account numbers, whole or in groups of four, of a
// country that issues them, with that country's length and a valid ISO 13616
// checksum (mod 97).
var iban = Detector{
	Kind:    KindIBAN,
	Pattern: `[A-Z]{2}\d{2}(?: ?[A-Z0-9]{4}){2,7}(?: ?[A-Z0-9]{1,3})?`,
	Valid:   validIBAN,
	Mask:    func(v string) string { return keepEnds(v, 4, 4) },
	Examples: []string{
		"My IBAN is DE89 3704 0044 0532 0130 00.",
		"pay to GB82WEST12345698765432 please",
		"我的账户 FR1420041010050500013M02606",
	},
	CounterExamples: []string{
		"DE89 3704 0044 0532 0130 01 is a typo", // checksum fails
		"flight LH1234 5678 gate B12",
		"model XY12ABCD3456 is out of stock",
	},
}

// ibanLengths are the IBAN lengths by country code (the IBAN registry).
var ibanLengths = map[string]int{
	"AD": 24, "AE": 23, "AL": 28, "AT": 20, "AZ": 28, "BA": 20, "BE": 16, "BG": 22, "BH": 22, "BR": 29,
	"BY": 28, "CH": 21, "CR": 22, "CY": 28, "CZ": 24, "DE": 22, "DK": 18, "DO": 28, "EE": 20, "EG": 29,
	"ES": 24, "FI": 18, "FO": 18, "FR": 27, "GB": 22, "GE": 22, "GI": 23, "GL": 18, "GR": 27, "GT": 28,
	"HR": 21, "HU": 28, "IE": 22, "IL": 23, "IQ": 23, "IS": 26, "IT": 27, "JO": 30, "KW": 30, "KZ": 20,
	"LB": 28, "LC": 32, "LI": 21, "LT": 20, "LU": 20, "LV": 21, "MC": 27, "MD": 24, "ME": 22, "MK": 19,
	"MR": 27, "MT": 31, "MU": 30, "NL": 18, "NO": 15, "PK": 24, "PL": 28, "PS": 29, "PT": 25, "QA": 29,
	"RO": 24, "RS": 22, "SA": 24, "SC": 31, "SE": 24, "SI": 19, "SK": 24, "SM": 27, "ST": 25, "SV": 28,
	"TL": 23, "TN": 24, "TR": 26, "UA": 29, "VA": 22, "VG": 24, "XK": 20,
}

func validIBAN(v string) bool {
	s := strings.ReplaceAll(v, " ", "")
	if want, ok := ibanLengths[s[:2]]; !ok || want != len(s) {
		return false
	}
	var digits strings.Builder
	for _, r := range s[4:] + s[:4] {
		switch {
		case r >= '0' && r <= '9':
			digits.WriteRune(r)
		case r >= 'A' && r <= 'Z':
			digits.WriteString(big.NewInt(int64(r - 'A' + 10)).String())
		default:
			return false
		}
	}
	n, ok := new(big.Int).SetString(digits.String(), 10)
	return ok && new(big.Int).Mod(n, big.NewInt(97)).Int64() == 1
}
