// Command engram is a memory service for LLM agents. See README.md.
package main

import (
	"os"

	"engram/bootstrap"
)

func main() {
	os.Exit(bootstrap.Run(os.Args[1:]))
}
