package ports

// IDs makes unique identifiers that sort by creation time (ULIDs in production), so
// lists ordered by id are ordered by age and tests can predict them.
type IDs interface {
	New() string
}
