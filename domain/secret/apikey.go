package secret

import "regexp"

// apiKey: API keys and access tokens of the shapes their issuers give them: OpenAI
// and Anthropic (sk-…), Stripe (sk_live_…), AWS access key ids (AKIA…, ASIA…),
// GitHub (ghp_…, github_pat_…), Slack (xoxb-…), Google (AIza…) and GitLab (glpat-…).
var apiKey = Detector{
	Kind: KindAPIKey,
	Pattern: `sk-[A-Za-z0-9_-]{20,}` +
		`|(?:sk|rk)_(?:live|test)_[A-Za-z0-9]{16,}` +
		`|(?:AKIA|ASIA)[0-9A-Z]{16}` +
		`|gh[pousr]_[A-Za-z0-9]{30,}|github_pat_[A-Za-z0-9_]{30,}` +
		`|xox[abposr]-[A-Za-z0-9-]{10,}` +
		`|AIza[0-9A-Za-z_-]{35}` +
		`|glpat-[A-Za-z0-9_-]{20,}`,
	Valid: validAPIKey,
	Mask:  func(string) string { return "[api_key]" },
	Examples: []string{
		"my openai key is sk-proj-4fT9xQ2LmZ7wRb8KcV1nHs3YdE6uJpA0",
		"export AWS_ACCESS_KEY_ID=AKIAIOSFODNN7EXAMPLE",
		"token ghp_16C7e42F292c6912E7710c838347Ae178B4a for CI",
		"slack bot: xoxb-123456789012-1234567890123-AbCdEfGhIjKl",
		"密钥是 sk-ant-api03-Zx8Qw2Er4Ty6Ui8Op0As2Df4Gh6Jk8L",
	},
	CounterExamples: []string{
		"I use scikit-learn and sk-video",
		"sk-this-is-not-really-any-key-at-all",
		"the task-runner-configuration-file is long",
		"AKIA is a name",
	},
}

// apiKeyPrefixes are the literals one of which starts every key.
var apiKeyPrefixes = []string{"sk-", "sk_", "rk_", "AKIA", "ASIA", "gh", "github_pat_", "xox", "AIza", "glpat-"}

var hasDigit = regexp.MustCompile(`\d`)

// validAPIKey: a key's random tail holds digits; a long hyphenated phrase does not.
func validAPIKey(v string) bool { return hasDigit.MatchString(v) }
