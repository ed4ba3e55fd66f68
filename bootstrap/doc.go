// Package bootstrap is the only place that knows every adapter: it loads the
// configuration, picks adapters, wires them with fx into the roles this process
// runs, and holds the command line. Business code never imports it or fx.
package bootstrap
