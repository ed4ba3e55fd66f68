// Package layers holds the test of the layer rules: which floors of engram may
// import which, so a dependency up a floor fails the build's tests.
package layers
