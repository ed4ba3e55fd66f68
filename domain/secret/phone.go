package secret

import "regexp"

// phone: phone numbers, only where the text says it is one ("my phone number
// is…", "call me at…", "手机号…"): a bare run of digits is as often an order, an
// id or an amount.
var phone = Detector{
	Kind:    KindPhone,
	Pattern: `\+?\(?\d{1,4}\)?(?:[ .-]?\(?\d{2,4}\)?){1,4}`,
	Valid:   validPhone,
	Context: `(?i)(?:\b(?:phone|mobile|cell(?:phone)?|telephone|tel|whats\s?app|signal|contact\s+number|call\s+me|text\s+me|reach\s+me|ring\s+me)\b|电话|手机|联系方式|联系电话|打给我|致电|微信号)`,
	Unless:  `(?i)(?:order|tracking|invoice|ticket|case|account|id\b|serial|model|version|订单|快递|单号|编号|型号|账号|版本|[.!?。；;])`,
	Mask:    func(v string) string { return keepEnds(v, 0, 4) },
	Examples: []string{
		"My phone number is 415-555-0132.",
		"call me at +1 (212) 555-0198 after six",
		"我的手机号是13812345678",
		"联系电话：010-62345678",
		"my mobile: +44 7700 900123",
	},
	CounterExamples: []string{
		"Order 415-555-0132 shipped.",
		"the code is 415-555-0132",
		"my phone is an iPhone 15 from 2023",
		"手机型号是 13812345678",
		"I called the bank on 2024-05-06",
	},
}

// validPhone takes 7 to 15 digits (E.164's most), and not a date.
func validPhone(v string) bool {
	d := digitsOf(v)
	if len(d) < 7 || len(d) > 15 {
		return false
	}
	return !dateLike.MatchString(v)
}

var dateLike = regexp.MustCompile(`^(?:\d{4}[-./]\d{1,2}[-./]\d{1,2}|\d{1,2}[-./]\d{1,2}[-./]\d{2,4})$`)
