-- Version 3: the journal's hash chain (project_lanes::record::chain), computed by sealing.
--
-- A transition writes its row as before, with link and hash NULL: nothing here runs in a
-- transition, so transitions of different projects still commit in parallel. Sealing
-- (src/journal/seal.rs, in Rust, so the hashing is the core's one function) waits for the
-- transitions in flight, takes the highest committed seq as its horizon, and then gives every
-- unsealed row up to it, in seq order, its link number and hash: the chain's link after the
-- sealed row before it.
--
-- The sealing invariant: the sealed rows are a prefix of the journal in seq order (no sealed row
-- after an unsealed one), numbered from the start's link + 1 without a gap, each hash the link
-- of its row's fields after the hash before it. An audit recomputes it and names the first row
-- that breaks it.

-- NULL until sealed; both or neither.
ALTER TABLE lanes_journal ADD COLUMN IF NOT EXISTS link bigint;
ALTER TABLE lanes_journal ADD COLUMN IF NOT EXISTS hash bytea;
ALTER TABLE lanes_journal DROP CONSTRAINT IF EXISTS lanes_journal_sealed;
ALTER TABLE lanes_journal ADD CONSTRAINT lanes_journal_sealed CHECK (
    (link IS NULL AND hash IS NULL)
    OR (link IS NOT NULL AND link > 0 AND hash IS NOT NULL AND octet_length(hash) = 32));

-- The chain before the journal's first remaining row: link 0 (hash NULL: 32 zero bytes) for a
-- journal never pruned, else the last pruned row's link and hash, so the chain stays verifiable
-- from the pruned point on.
ALTER TABLE lanes_journal_start ADD COLUMN IF NOT EXISTS link bigint NOT NULL DEFAULT 0;
ALTER TABLE lanes_journal_start ADD COLUMN IF NOT EXISTS hash bytea;
ALTER TABLE lanes_journal_start DROP CONSTRAINT IF EXISTS lanes_journal_start_chain;
ALTER TABLE lanes_journal_start ADD CONSTRAINT lanes_journal_start_chain CHECK (
    link >= 0 AND (hash IS NULL OR octet_length(hash) = 32) AND (link = 0) = (hash IS NULL));
