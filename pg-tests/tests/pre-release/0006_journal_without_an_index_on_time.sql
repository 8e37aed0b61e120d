-- Version 6: the journal without its index on time.
--
-- Every row of lanes_journal also wrote an entry into a B-tree on `at`, which no statement
-- uses: an export, an audit and a prune read the journal in `seq` order from its start (the
-- primary key) and cut their window by time as they read, because a window replays only from
-- the state before it. With eight connections the journal's two B-trees grew at their right
-- edge from every transaction at once; one is enough.
DROP INDEX lanes_journal_at;
