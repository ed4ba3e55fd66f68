// Package memstore keeps engram's storage ports in process memory, for tests and
// demos. Each store has the semantics of its SQL twin in adapters/sqlstore — the
// same contract suites in test/contract run against both — including what SQL
// does implicitly: times are kept in UTC to the microsecond, ids are unique, and
// every value handed in or out is a copy.
//
// It imports domain and ports only.
package memstore
