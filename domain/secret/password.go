package secret

import (
	_ "embed"
	"regexp"
	"strings"
)

// passwordEN: a password or PIN given in an English phrase: "my (wifi) password is
// X", "password: X", "the password for the router is X", "PIN is 1234". What
// follows must look like a password: not a word that says something about one
// ("my password is too weak", "…is expired").
var passwordEN = Detector{
	Kind: KindPassword,
	Pattern: `(?i)\b(?:password|passcode|passphrase|passwd|pwd|wi-?fi\s+key)s?` +
		`(?:\s+(?:for|to|of|on)\s+(?:(?:my|the|our|your)\s+)?[\w.@'-]+(?:\s+(?:account|app|router|network|wifi|wi-fi|laptop|phone|computer|server|email|box))?)?` +
		`\s*(?:is|was|is\s+now|=|:|-)\s*["'“‘` + "`" + `]?(?P<v>[^\s"'”’` + "`" + `]+)` +
		`|(?i)\bpin(?:\s+(?:code|number))?\s*(?:is|was|=|:)\s*(?P<v>\d{4,8})`,
	Valid: validPassword,
	Mask:  func(string) string { return "[password]" },
	Examples: []string{
		"My wifi password is hunter2-Blue!",
		"password: Tr0ub4dor&3",
		"The password for my gmail account is sunshine88.",
		"my bank PIN is 4821",
		"my password is 'correcthorsebattery'",
	},
	CounterExamples: []string{
		"My password is too weak, I should change it.",
		"I forgot my password again.",
		"my password is expired",
		"the password is the name of my first dog",
		"Password is required for login.",
		"pin is in the drawer",
	},
}

// passwordZH: "密码是X", "wifi密码：X", "支付密码为X". The password is the run of
// Latin letters, digits and symbols after it; Chinese after 密码是 is talk about a
// password ("密码是什么", "密码是我的生日").
var passwordZH = Detector{
	Kind:    KindPassword,
	Pattern: `(?:密码|密碼|口令|PIN码|pin码)[^，。,.!?！？\s\d]{0,3}?(?:是|为|為|：|:|=)\s*["'“‘「]?(?P<v>[A-Za-z0-9!@#$%^&*()_+=\-.~?]{4,})`,
	Valid:   validPassword,
	Mask:    func(string) string { return "[password]" },
	Examples: []string{
		"我家wifi密码是12345678",
		"银行卡密码：Abc@2024",
		"邮箱的密码为 qwerty123",
		"支付密码是 886655。",
	},
	CounterExamples: []string{
		"密码是什么来着？",
		"我的密码是我女儿的生日",
		"密码太简单了",
		"忘记密码了怎么办",
	},
}

//go:embed words/not_passwords.txt
var notPasswordsFile string

var notPasswords = func() map[string]bool {
	out := map[string]bool{}
	for _, l := range strings.Split(notPasswordsFile, "\n") {
		if l = strings.TrimSpace(l); l != "" && !strings.HasPrefix(l, "#") {
			out[l] = true
		}
	}
	return out
}()

var (
	onlyLetters = regexp.MustCompile(`^[A-Za-z]+$`)
	wordEnding  = regexp.MustCompile(`(?i)(?:ed|ing|ly|ble|ful|less|ous|ive)$`)
	maskLike    = regexp.MustCompile(`^(?:\[[a-z_]+\]?|\*+)$`)
)

// validPassword: at least four characters once trailing punctuation is cut, not a
// mask, and either not only letters or a letters-only word that is no word about
// passwords (a word list, and endings of adjectives and participles).
func validPassword(v string) bool {
	v = strings.TrimRight(v, ".,;!?)]}。，；！？")
	if len([]rune(v)) < 4 || maskLike.MatchString(v) {
		return false
	}
	if !onlyLetters.MatchString(v) {
		return true
	}
	lower := strings.ToLower(v)
	return !notPasswords[lower] && !wordEnding.MatchString(lower)
}
