// Package secret finds secrets and identity numbers in text, so that none of them
// ever reaches a prompt: payment card numbers (Luhn), IBANs (ISO 13616 checksum), US
// social security numbers, Chinese resident identity numbers (ISO 7064 checksum),
// phone numbers said to be one ("my phone number is …", "手机号…"), API keys and
// tokens of known shapes (sk-…, AKIA…, ghp_…, xox…-, PEM private keys, JWTs) and
// passwords given in a phrase ("my wifi password is …", "密码是…").
//
// Every text a user or an agent hands in passes the screen before it is stored. The
// deployment's Mode says what happens then: mask (the secret is replaced by a mask
// that keeps what is safe to keep, "4111 **** **** 1111", "[password]"), flag (the
// text is stored as given and whatever puts text in front of a model leaves it out)
// or off.
//
// Detectors are data: one detector per file, each with the examples that prove it
// fires and the counter-examples (look-alikes: order numbers, dates, versions,
// phone-like ids) that prove it does not. A checksum or a context word, never the
// shape alone, decides where a shape is common. Pure Go: standard library only.
package secret
