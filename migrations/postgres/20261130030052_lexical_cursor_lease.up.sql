-- Several indexer processes share the lexical message pass: the one holding the
-- cursor's lease runs it, the others skip until the lease lapses.
ALTER TABLE lexical_cursors ADD COLUMN holder TEXT;
--bun:split
ALTER TABLE lexical_cursors ADD COLUMN lease_until TIMESTAMPTZ;
