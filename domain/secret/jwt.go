package secret

// jwt: JSON web tokens: three base64url parts, the first two JSON objects (so they
// start with eyJ, the encoding of `{"`).
var jwt = Detector{
	Kind:    KindJWT,
	Pattern: `eyJ[A-Za-z0-9_-]{8,}\.eyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{16,}`,
	Mask:    func(string) string { return "[token]" },
	Examples: []string{
		"Authorization: Bearer eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.eyJzdWIiOiIxMjM0NTY3ODkwIiwibmFtZSI6IkpvaG4ifQ.SflKxwRJSMeKKF2QT4fwpMeJf36POk6yJV_adQssw5c",
		"我的令牌 eyJhbGciOiJSUzI1NiJ9.eyJpc3MiOiJhY2NvdW50cyJ9.dGhpcyBpcyBub3QgYSByZWFsIHNpZw",
		"token=eyJ0eXAiOiJKV1QiLCJhbGciOiJIUzI1NiJ9.eyJ1c2VyIjoiYWxpY2UifQ.abcdefghijklmnopqrstuv",
	},
	CounterExamples: []string{
		"eyJhbGciOiJIUzI1NiJ9 alone is only a header",
		"a.b.c is not a token",
		"version 1.2.3-eyJ",
	},
}
