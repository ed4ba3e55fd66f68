// Package configs holds the embedded default configuration (engram.yaml). The
// bootstrap package reads it first, then an optional file, then the environment.
package configs

import _ "embed"

// Default is configs/engram.yaml: every setting with its default value.
//
//go:embed engram.yaml
var Default []byte
