// Package e2e runs the engram binary as a user would: built from source, started
// with nothing but a data directory and a port, and talked to over HTTP.
package e2e
