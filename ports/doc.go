// Package ports declares the interfaces through which use cases in app/ reach the
// outside world, one file per port, and the error values those ports may return.
// Adapters implement them and translate their drivers' errors into these values;
// nothing here imports an adapter, a driver or an SDK.
package ports
