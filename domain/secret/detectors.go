package secret

// detectors are every detector. Order does not matter: Find keeps, of two findings
// that overlap, the one that starts first.
var detectors = []Detector{
	card, iban, ssnDashed, ssnPlain, cnID, phone,
	apiKey, privateKey, jwt,
	passwordEN, passwordZH,
}
