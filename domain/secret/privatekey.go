package secret

// privateKey: a PEM private key block (RSA, EC, OpenSSH, PKCS #8, encrypted or not),
// up to its END line, or to the end of the text when it was cut off.
var privateKey = Detector{
	Kind:    KindPrivateKey,
	Pattern: `(?s)-----BEGIN [A-Z ]*PRIVATE KEY-----.*?(?:-----END [A-Z ]*PRIVATE KEY-----|\z)`,
	Mask:    func(string) string { return "[private_key]" },
	Examples: []string{
		"here is my key:\n-----BEGIN RSA PRIVATE KEY-----\nMIIEowIBAAKCAQEA7bq\n-----END RSA PRIVATE KEY-----\nthanks",
		"-----BEGIN OPENSSH PRIVATE KEY-----\nb3BlbnNzaC1rZXktdjEAAAAA",
		"-----BEGIN PRIVATE KEY-----\nMIIEvQIBADANBgkqhkiG9w0BAQEFAASC\n-----END PRIVATE KEY-----",
	},
	CounterExamples: []string{
		"-----BEGIN PUBLIC KEY-----\nMIIBIjANBgkqhkiG9w0BAQEFAAOCAQ8A\n-----END PUBLIC KEY-----",
		"-----BEGIN CERTIFICATE-----\nMIIDdzCCAl+gAwIBAgIE\n-----END CERTIFICATE-----",
		"I keep my private key on a hardware token.",
	},
}
