package memories

import (
	"engram/domain/invalid"
	"engram/domain/memory"
)

// writableKey normalises a key a writer sent and refuses noise families, saying which
// rule matched so the agent can pick another key.
func writableKey(raw string) (memory.Key, error) {
	key, err := memory.ParseKey(raw)
	if err != nil {
		return memory.Key{}, err
	}
	if rule, noisy := memory.NoiseRuleFor(key); noisy {
		return memory.Key{}, invalid.FieldValue("key", key.String(),
			"matches the noise rule %q (%s); such keys are not kept as long-term memory", rule.Prefix+"*", rule.Reason)
	}
	return key, nil
}
