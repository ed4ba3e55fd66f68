package secret

import "strconv"

// card: payment card numbers of the major networks, 13 to 19 digits written whole
// or in groups, that pass the Luhn check and start as their network's numbers do.
// An order, tracking or invoice number just before it says it is not a card.
var card = Detector{
	Kind:    KindCard,
	Pattern: `\d{13,19}|\d{4}[ -]\d{4}[ -]\d{4}[ -]\d{1,7}|\d{4}[ -]\d{6}[ -]\d{4,5}`,
	Valid:   validCard,
	Unless:  `(?i)(?:order|tracking|invoice|ref(?:erence)?|shipment|parcel|booking|ticket|serial|isbn|account\s+id|订单|快递|运单|单号|编号|流水号|发票)`,
	Mask:    func(v string) string { return keepEnds(v, 4, 4) },
	Examples: []string{
		"My credit card number is 4111 1111 1111 1111.",
		"card: 5500-0000-0000-0004 exp 12/27",
		"Amex 3782 822463 10005 is the company card",
		"我的信用卡号是6222021234567890128",
		"use 4012888888881881 for the hotel",
	},
	CounterExamples: []string{
		"Order number 4111111111111111 has shipped.",
		"my order 4111 1111 1111 1111 arrives Monday",
		"The tracking number is 1Z999AA10123456784.",
		"call 4111 1111 1111 1112 if lost", // fails Luhn
		"订单号4111111111111111已发货",
		"1234 5678 9012 3456 is a made-up number",
	},
}

// cardNetworks are the first digits (as a range of prefixes of one length) and the
// lengths of the major networks' numbers.
var cardNetworks = []struct {
	lo, hi  int // prefix range, inclusive
	digits  int // digits in the prefix
	lengths []int
}{
	{4, 4, 1, []int{13, 16, 19}},                       // Visa
	{51, 55, 2, []int{16}},                             // Mastercard
	{2221, 2720, 4, []int{16}},                         // Mastercard
	{34, 34, 2, []int{15}},                             // American Express
	{37, 37, 2, []int{15}},                             // American Express
	{6011, 6011, 4, []int{16, 17, 18, 19}},             // Discover
	{644, 649, 3, []int{16, 17, 18, 19}},               // Discover
	{65, 65, 2, []int{16, 17, 18, 19}},                 // Discover
	{3528, 3589, 4, []int{16, 17, 18, 19}},             // JCB
	{62, 62, 2, []int{16, 17, 18, 19}},                 // UnionPay
	{300, 305, 3, []int{14, 15, 16, 17, 18, 19}},       // Diners Club
	{36, 36, 2, []int{14, 15, 16, 17, 18, 19}},         // Diners Club
	{38, 39, 2, []int{16, 17, 18, 19}},                 // Diners Club
	{50, 50, 2, []int{12, 13, 14, 15, 16, 17, 18, 19}}, // Maestro
	{56, 58, 2, []int{12, 13, 14, 15, 16, 17, 18, 19}}, // Maestro
	{2200, 2204, 4, []int{16, 17, 18, 19}},             // Mir
}

func validCard(v string) bool {
	d := digitsOf(v)
	if len(d) < 12 || len(d) > 19 || !luhn(d) {
		return false
	}
	for _, n := range cardNetworks {
		p, _ := strconv.Atoi(d[:n.digits])
		if p < n.lo || p > n.hi {
			continue
		}
		for _, l := range n.lengths {
			if l == len(d) {
				return true
			}
		}
	}
	return false
}
