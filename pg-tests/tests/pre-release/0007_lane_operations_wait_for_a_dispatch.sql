-- Version 7: a claim or a release waits for a dispatch in progress.
--
-- One record holds a project's direct lane operations and its dispatcher operations together,
-- so the journal's order must replay both on one core. A dispatch decides by every lane it
-- looks at and skips a lane row locked at that instant; a claim or release that changed a lane
-- under its eyes, or held the lane's row while it looked, drew its number before the dispatch
-- did and replayed as if the dispatch had seen the change: the core then dispatches another
-- reservation. So a claim, a release and resolve_orphan take the dispatcher lock shared before
-- their lane row, as persist and resolve do; they still commute with each other. A stop request
-- changes nothing a dispatch looks at (the lane stays held; a refused one locks no row) and
-- takes no dispatcher lock.
--
-- Each is a PL/pgSQL function of one round trip (its plan cached per session, as a prepared
-- statement's is), its statement as before: a function's statements each take a fresh
-- snapshot, so the lane row is read after the lock is granted.

-- A direct claim: the lane if it is idle and unblocked, with a new generation and token;
-- journaled with its answer (PROJECT_BUSY when no row comes back).
CREATE FUNCTION lanes_claim(p_project text, p_run text, p_pid integer, p_started timestamptz,
                            p_key bigint)
RETURNS TABLE (o_generation bigint, o_token text)
LANGUAGE plpgsql AS $$
BEGIN
    PERFORM lanes_dispatcher_lock_shared();
    RETURN QUERY WITH c AS (
        INSERT INTO lanes AS l (project, generation, run, token, owner_pid, owner_started,
                                owner_key)
        VALUES (p_project, 1, p_run, gen_random_uuid()::text, p_pid, p_started, p_key)
        ON CONFLICT (project) DO UPDATE
            SET generation = l.generation + 1, run = excluded.run, token = excluded.token,
                stop_requested = false, owner_pid = excluded.owner_pid,
                owner_started = excluded.owner_started, owner_key = excluded.owner_key,
                orphaned_generation = NULL
            WHERE l.run IS NULL AND l.blocked_by IS NULL
        RETURNING l.generation, l.token),
    j AS (
        INSERT INTO lanes_journal (op, code, project, run, generation)
        SELECT 'claim', CASE WHEN c.token IS NULL THEN 'PROJECT_BUSY' ELSE 'OK' END, p_project,
               p_run, c.generation
        FROM (SELECT 1) one LEFT JOIN c ON true)
    SELECT c.generation, c.token FROM c;
END $$;

-- A release by the lease's token, journaled; returns the stop request.
CREATE FUNCTION lanes_release(p_project text, p_token text, p_run text, p_generation bigint,
                              p_outcome text)
RETURNS TABLE (o_stop_requested boolean)
LANGUAGE plpgsql AS $$
BEGIN
    PERFORM lanes_dispatcher_lock_shared();
    RETURN QUERY WITH r AS (
        UPDATE lanes SET run = NULL, token = NULL, owner_pid = NULL, owner_started = NULL,
            owner_key = NULL, orphaned_generation = NULL
        WHERE project = p_project AND token = p_token
        RETURNING stop_requested),
    j AS (
        INSERT INTO lanes_journal (op, code, project, run, generation, outcome, stop_requested)
        SELECT 'release', CASE WHEN r.stop_requested IS NULL THEN 'LEASE_NOT_CURRENT'
                               ELSE 'OK' END, p_project, p_run, p_generation, p_outcome,
               r.stop_requested
        FROM (SELECT 1) one LEFT JOIN r ON true)
    SELECT r.stop_requested FROM r;
END $$;

-- An orphaned lane freed; returns the dead holder's run and the stop request. Journaled as a
-- release of the dead holder's lease with needs_review.
CREATE FUNCTION lanes_resolve_orphan(p_project text)
RETURNS TABLE (o_run text, o_stop_requested boolean)
LANGUAGE plpgsql AS $$
BEGIN
    PERFORM lanes_dispatcher_lock_shared();
    RETURN QUERY WITH o AS (
        UPDATE lanes l SET run = NULL, token = NULL, owner_pid = NULL, owner_started = NULL,
            owner_key = NULL, orphaned_generation = NULL
        FROM (SELECT project, run FROM lanes
              WHERE project = p_project AND orphaned_generation IS NOT NULL FOR UPDATE) old
        WHERE l.project = old.project
        RETURNING old.run, l.stop_requested, l.generation),
    j AS (
        INSERT INTO lanes_journal (op, via, code, project, run, generation, outcome,
                                   stop_requested)
        SELECT 'release', 'resolve_orphan', 'OK', p_project, o.run, o.generation,
               'needs_review', o.stop_requested
        FROM o)
    SELECT o.run, o.stop_requested FROM o;
END $$;
