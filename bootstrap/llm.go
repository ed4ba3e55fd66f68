package bootstrap

import (
	"fmt"
	"time"

	"engram/adapters/llm"
	"engram/bootstrap/config"
	"engram/configs/prompts"
)

// newLLMClient builds the model client ENGRAM_LLM_PROVIDER names, with the prompt
// files (embedded, or ENGRAM_PROMPTS_DIR's), for the stages that call it.
func newLLMClient(cfg config.Config, timeout time.Duration) (*llm.Client, *prompts.Set, error) {
	set, err := prompts.Load(prompts.Options{Dir: cfg.LLM.PromptsDir})
	if err != nil {
		return nil, nil, fmt.Errorf("ENGRAM_PROMPTS_DIR: %w", err)
	}
	client, err := llm.NewClient(llm.Options{
		Provider:   llm.Provider(cfg.LLM.Provider),
		BaseURL:    cfg.LLM.APIBase,
		APIKey:     cfg.LLM.APIKey,
		Model:      cfg.LLM.Model,
		MaxRetries: cfg.LLM.MaxRetries,
		Timeout:    timeout,
	})
	if err != nil {
		return nil, nil, fmt.Errorf("ENGRAM_LLM_PROVIDER %s: %w", cfg.LLM.Provider, err)
	}
	return client, set, nil
}
