-- Flags of a memory (memory.FlagSet): names sorted and comma-joined, '' for none,
-- e.g. 'instruction_like'. NULL on rows written before flags were kept; the store
-- classifies their content when it reads them, so no old row is shown unflagged.
ALTER TABLE long_term_memories ADD COLUMN IF NOT EXISTS flags VARCHAR(200);
