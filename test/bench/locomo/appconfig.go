package main

import (
	"flag"
	"fmt"
	"strconv"
	"strings"

	"engram/app/retrieval"
	"engram/bootstrap/config"
	"engram/domain/ranking"
)

// appConfig is the calibration knobs of the app methods, so that -app-config can
// try other values than the product's and -generalise can tune them.
type appConfig struct {
	ContextDiscount float64
	Saturation      float64
	SpeakerBoost    float64
	Dense           ranking.DenseScale
	MinScore        float64
	BackgroundDocs  int
	// Expand scales the lexicon's weights of related terms (lexicon.DefaultWeights);
	// 0: no query expansion (ENGRAM_QUERY_EXPANSION false).
	Expand float64
}

// productAppConfig is the product's calibration: ranking.DefaultRecipe, and the
// local embedder's dense scale and min_score of configs/engram.yaml.
var productAppConfig = func() appConfig {
	cfg, err := config.Load("", nil)
	if err != nil {
		panic(fmt.Sprintf("the embedded configuration does not load: %v", err))
	}
	e := cfg.Embedding
	return appConfig{
		ContextDiscount: ranking.DefaultRecipe.ContextDiscount,
		Saturation:      ranking.DefaultRecipe.TermSaturation,
		SpeakerBoost:    ranking.DefaultRecipe.SpeakerBoost,
		Dense:           ranking.DenseScale{Floor: e.LocalMinCosine, Full: e.LocalFullCosine, Weight: e.LocalDenseWeight},
		MinScore:        cfg.Memory.MinScore,
		BackgroundDocs:  ranking.DefaultRecipe.BackgroundDocs,
		Expand:          map[bool]float64{true: 1}[cfg.Memory.QueryExpansion],
	}
}()

func (c appConfig) options() retrieval.Options {
	r := ranking.DefaultRecipe
	r.ContextDiscount, r.TermSaturation, r.SpeakerBoost, r.BackgroundDocs = c.ContextDiscount, c.Saturation, c.SpeakerBoost, c.BackgroundDocs
	return retrieval.Options{Recipe: r, Dense: c.Dense, MinScore: c.MinScore}
}

func (c appConfig) String() string {
	return fmt.Sprintf("cd%.2g sat%.2g sb%.2g floor%.2g full%.2g dw%.2g min%.2g ex%.2g", c.ContextDiscount, c.Saturation, c.SpeakerBoost, c.Dense.Floor, c.Dense.Full, c.Dense.Weight, c.MinScore, c.Expand)
}

var appConfigFlag = flag.String("app-config", "", "calibration of the app methods instead of the product's: cd=0.8,sat=0.3,sb=1,floor=0.25,full=0.5,dw=0.05,min=0.12,bg=20,ex=1 (any subset)")

// parseAppConfig reads -app-config over the product's values.
func parseAppConfig(s string) (appConfig, error) {
	c := productAppConfig
	if strings.TrimSpace(s) == "" {
		return c, nil
	}
	for _, kv := range strings.Split(s, ",") {
		k, v, ok := strings.Cut(strings.TrimSpace(kv), "=")
		f, err := strconv.ParseFloat(v, 64)
		if !ok || err != nil {
			return c, fmt.Errorf("-app-config: %q is not name=number", kv)
		}
		switch k {
		case "cd":
			c.ContextDiscount = f
		case "sat":
			c.Saturation = f
		case "sb":
			c.SpeakerBoost = f
		case "floor":
			c.Dense.Floor = f
		case "full":
			c.Dense.Full = f
		case "dw":
			c.Dense.Weight = f
		case "min":
			c.MinScore = f
		case "bg":
			c.BackgroundDocs = int(f)
		case "ex":
			c.Expand = f
		default:
			return c, fmt.Errorf("-app-config: unknown knob %q (cd, sat, sb, floor, full, dw, min, bg, ex)", k)
		}
	}
	return c, nil
}
