package secret

import "strconv"

// ssnDashed: US social security numbers written as 123-45-6789, in the ranges the
// Social Security Administration issues (no area 000, 666 or 9xx, no group 00, no
// serial 0000). Part, case, order and ticket numbers of the same shape are not.
var ssnDashed = Detector{
	Kind:    KindSSN,
	Pattern: `\d{3}-\d{2}-\d{4}`,
	Valid:   validSSN,
	Unless:  `(?i)(?:part|order|case|ticket|invoice|ref(?:erence)?|model|serial|item|sku|tracking|phone|tel|fax|call|#|订单|编号|型号)`,
	Mask:    func(v string) string { return keepEnds(v, 0, 4) },
	Examples: []string{
		"My SSN is 123-45-6789.",
		"social security 078-05-1120 on the form",
		"我的社保号是 219-09-9999",
	},
	CounterExamples: []string{
		"Part number 123-45-6789 is back-ordered.",
		"ssn 000-12-3456 is not a real one",
		"the meeting is on 2024-05-1234", // not the shape
		"ticket 555-44-3333 was closed",
	},
}

// ssnPlain: the nine digits written without dashes, or with spaces, only where
// the text says it is a social security number.
var ssnPlain = Detector{
	Kind:    KindSSN,
	Pattern: `\d{3} \d{2} \d{4}|\d{9}`,
	Valid:   validSSN,
	Context: `(?i)(?:\bssn\b|social\s+security(?:\s+number)?|社会安全号|社会保障号|社保号)`,
	Unless:  `[.!?。]`,
	Mask:    func(v string) string { return keepEnds(v, 0, 4) },
	Examples: []string{
		"my ssn: 123456789",
		"Social security number 123 45 6789",
	},
	CounterExamples: []string{
		"my employee id is 123456789",
		"call 123 45 6789",
	},
}

func validSSN(v string) bool {
	d := digitsOf(v)
	if len(d) != 9 {
		return false
	}
	area, _ := strconv.Atoi(d[:3])
	group, _ := strconv.Atoi(d[3:5])
	serial, _ := strconv.Atoi(d[5:])
	return area != 0 && area != 666 && area < 900 && group != 0 && serial != 0
}
