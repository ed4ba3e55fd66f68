// Package contract holds one test suite per port (RunMemoryStore and the others):
// every adapter's tests run the suite of each port it implements, so that all
// implementations of a port behave alike.
package contract
