package main

import (
	"flag"
	"fmt"
	"strconv"
	"strings"

	"engram/app/retrieval"
	"engram/domain/ranking"
)

// appConfig is the calibration knobs of the app methods, so that -app-config can
// try other values than the product's and -generalise can tune them.
type appConfig struct {
	ContextDiscount float64
	Saturation      float64
	SpeakerBoost    float64
	Dense           ranking.DenseScale
}

// productAppConfig is the product's calibration (ranking.DefaultRecipe,
// retrieval.DefaultDenseScale).
var productAppConfig = appConfig{
	ContextDiscount: ranking.DefaultRecipe.ContextDiscount,
	Saturation:      ranking.DefaultRecipe.TermSaturation,
	SpeakerBoost:    ranking.DefaultRecipe.SpeakerBoost,
	Dense:           retrieval.DefaultDenseScale,
}

func (c appConfig) options() retrieval.Options {
	r := ranking.DefaultRecipe
	r.ContextDiscount, r.TermSaturation, r.SpeakerBoost = c.ContextDiscount, c.Saturation, c.SpeakerBoost
	return retrieval.Options{Recipe: r, Dense: c.Dense}
}

func (c appConfig) String() string {
	return fmt.Sprintf("cd%.2g sat%.2g sb%.2g floor%.2g full%.2g dw%.2g", c.ContextDiscount, c.Saturation, c.SpeakerBoost, c.Dense.Floor, c.Dense.Full, c.Dense.Weight)
}

var appConfigFlag = flag.String("app-config", "", "calibration of the app methods instead of the product's: cd=0.8,sat=0.3,sb=1,floor=0.25,full=0.45,dw=0.1 (any subset)")

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
		default:
			return c, fmt.Errorf("-app-config: unknown knob %q (cd, sat, sb, floor, full, dw)", k)
		}
	}
	return c, nil
}
