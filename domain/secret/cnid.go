package secret

import "time"

// cnID: Chinese resident identity numbers: 18 characters, a province code, a
// birth date that exists, and the ISO 7064 MOD 11-2 check character (0-9 or X).
var cnID = Detector{
	Kind:    KindCNID,
	Pattern: `\d{17}[\dXx]`,
	Valid:   validCNID,
	Unless:  `(?i)(?:order|tracking|invoice|ticket|serial|订单|快递|运单|单号|编号|流水号|发票)`,
	Mask:    func(v string) string { return keepEnds(v, 0, 4) },
	Examples: []string{
		"我的身份证号是11010519491231002X",
		"ID card: 11010519491231002x is mine",
		"身份证 440308199901011234",
	},
	CounterExamples: []string{
		"订单号 202405061234567890",
		"快递单号 773012345678901234",
		"11010519491331002X", // no 31st of the 13th month
	},
}

// cnProvinces are the first two digits of a resident identity number.
var cnProvinces = map[string]bool{
	"11": true, "12": true, "13": true, "14": true, "15": true,
	"21": true, "22": true, "23": true,
	"31": true, "32": true, "33": true, "34": true, "35": true, "36": true, "37": true,
	"41": true, "42": true, "43": true, "44": true, "45": true, "46": true,
	"50": true, "51": true, "52": true, "53": true, "54": true,
	"61": true, "62": true, "63": true, "64": true, "65": true,
	"71": true, "81": true, "82": true, "83": true, "91": true,
}

var cnWeights = [17]int{7, 9, 10, 5, 8, 4, 2, 1, 6, 3, 7, 9, 10, 5, 8, 4, 2}

const cnCheck = "10X98765432"

func validCNID(v string) bool {
	if len(v) != 18 || !cnProvinces[v[:2]] {
		return false
	}
	born, err := time.Parse("20060102", v[6:14])
	if err != nil || born.Year() < 1900 || born.Year() > 2100 {
		return false
	}
	sum := 0
	for i := range 17 {
		sum += int(v[i]-'0') * cnWeights[i]
	}
	last := v[17]
	if last == 'x' {
		last = 'X'
	}
	return cnCheck[sum%11] == last
}
