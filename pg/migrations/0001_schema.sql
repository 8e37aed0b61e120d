-- Version 1: lanes, queues, reservations, and a journal of every transition.
--
-- Every transition is one function call (one round trip, one transaction) that journals itself:
-- the row of lanes_journal is inserted in the transition's own transaction, by
-- lanes_journal_write, so the journal can never disagree with the state. Refusals are journaled
-- too, except a call naming a reservation that does not exist (UNKNOWN_RESERVATION): no record
-- can name it, and its refusal would depend on an enqueue not yet committed.
--
-- The file is idempotent over a schema that already has these tables (CREATE … IF NOT EXISTS,
-- CREATE OR REPLACE), so that the pre-release schema is upgraded by running it again
-- (src/schema.rs).
--
-- Locks, and the order that replays. The journal's order is `seq`, drawn after the transition's
-- locks are taken; `lanes-pg audit` replays it on the in-memory core, so every order the locks
-- allow must replay:
--
-- - Lock order everywhere: the dispatcher lock, queue row, reservation rows, lane rows. A
--   transition waits for at most one lane row, and only while holding no other lane row.
-- - A dispatch decides by every lane and queue it looks at, and skips a lane row locked at that
--   instant (a timing the core does not model). So a dispatch, and recovery, take the
--   dispatcher lock (one transaction-level advisory lock per schema) alone; the transitions that
--   change a lane a dispatch looks at (claim, release, resolve_orphan, persist, resolve) take it
--   shared, and commute with each other.
-- - Lane operations on one project wait for its lane row (a claim's INSERT … ON CONFLICT DO
--   UPDATE locks the row even when it refuses), so a later one draws a later number; one refused
--   without a lock (a stale token) saw the change that made it stale committed, and that change
--   drew its number before committing. A stop request changes nothing a dispatch looks at (the
--   lane stays held) and takes no dispatcher lock.
-- - An enqueue holds its queue's row (as the queue's dispatches do); a finish or a cancel holds
--   its reservation's row, taken first, refusals too: they change nothing a dispatch of another
--   reservation looks at.
--
-- What a transition did that is not a core operation is journaled as the core operations with
-- the same effect, and `via` says what really happened: resolve_orphan is a release of the dead
-- holder's lease with needs_review; recovery of a reservation whose holder died is a finish with
-- needs_review (if it was dispatched) and a persist that was not saved, which in the core makes
-- it unresolved and blocks its project, as recovery does. Recovery's orphan flag on a lane held
-- directly changes nothing the core shows (the same lease holds the lane): it is not journaled.

-- This set of lanes' identity: leases of another schema (or database) are not current here.
CREATE TABLE IF NOT EXISTS lanes_identity (id text NOT NULL);
INSERT INTO lanes_identity SELECT gen_random_uuid()::text
WHERE NOT EXISTS (SELECT 1 FROM lanes_identity);

-- One row per project ever claimed; idle lanes keep their generation.
CREATE TABLE IF NOT EXISTS lanes (
    project text PRIMARY KEY,
    -- Claims so far: the fencing generation of the current (or last) lease.
    generation bigint NOT NULL,
    -- The holder (NULL when idle) and its private token.
    run text,
    token text,
    stop_requested boolean NOT NULL DEFAULT false,
    -- The holder's database session: its backend pid and start time.
    owner_pid integer,
    owner_started timestamptz,
    -- An unresolved reservation of this project: no claim and no dispatch until resolved.
    blocked_by bigint,
    -- Set by recovery: the generation of the holder whose session was gone. The lane stays held
    -- until a person resolves it, or the holder's lease releases it after all; every transition
    -- that changes the holder clears it, which the constraint checks.
    orphaned_generation bigint,
    -- The key of the holder session's advisory lock, held until that session ends: recovery
    -- judges a holder gone when the key is free. A lane taken without a key is judged by
    -- pg_stat_activity instead, and a session whose start time the caller cannot see counts as
    -- alive: recovery never decides that a session ended from what it cannot see.
    owner_key bigint,
    CONSTRAINT lanes_orphan_is_the_current_holder
        CHECK (orphaned_generation IS NULL
               OR (run IS NOT NULL AND orphaned_generation = generation))
);

CREATE TABLE IF NOT EXISTS queues (name text PRIMARY KEY);

CREATE SEQUENCE IF NOT EXISTS reservation_ids;

CREATE TABLE IF NOT EXISTS reservations (
    id bigint PRIMARY KEY,
    queue text NOT NULL REFERENCES queues (name),
    project text NOT NULL,
    run text NOT NULL,
    state text NOT NULL,
    outcome text,
    -- While the reservation holds its lane (dispatched, persisting): the lane's generation and
    -- token.
    generation bigint,
    token text,
    enqueued_at timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX IF NOT EXISTS reservations_queued ON reservations (queue, id)
    WHERE state = 'queued';
CREATE INDEX IF NOT EXISTS reservations_in_flight ON reservations (token)
    WHERE state IN ('dispatched', 'persisting');

-- The caller's actor: set per session by the crate (project_lanes.actor), else role/pid.
CREATE OR REPLACE FUNCTION lanes_journal_actor() RETURNS text
LANGUAGE sql STABLE AS $$
    SELECT coalesce(nullif(current_setting('project_lanes.actor', true), ''),
                    session_user || '/' || pg_backend_pid())
$$;

CREATE SEQUENCE IF NOT EXISTS lanes_journal_seq;

-- The journal: one row per transition. Export, audit and prune read it in `seq` order from its
-- start and cut their window by time as they read (a window replays only from the state before
-- it), so `at` has no index.
CREATE TABLE IF NOT EXISTS lanes_journal (
    seq bigint PRIMARY KEY DEFAULT nextval('lanes_journal_seq'),
    -- When, by the server's clock (clock_timestamp: the moment of the row, not of BEGIN).
    at timestamptz NOT NULL DEFAULT clock_timestamp(),
    -- Who called: the handle's actor (PgConfig::actor, by default host/pid), or, for a session
    -- that set none, the role and backend pid.
    actor text NOT NULL DEFAULT lanes_journal_actor(),
    -- The core operation: claim, request_stop, release, enqueue, dispatch, finish, persist,
    -- cancel, resolve.
    op text NOT NULL,
    -- What the library really did, when it is not that operation: resolve_orphan, recover.
    via text,
    -- OK, or the refusal's code (PROJECT_BUSY, LEASE_NOT_CURRENT, NOT_QUEUED, …).
    code text NOT NULL,
    -- Lane operations: the project, the run, the lease's generation; a release's outcome and
    -- the stop request its receipt reported.
    project text,
    run text,
    generation bigint,
    outcome text,
    stop_requested boolean,
    -- Dispatcher operations: the reservation after the transition (queue, project, run above,
    -- state, outcome), and persist's `saved`.
    queue text,
    reservation bigint,
    saved boolean,
    state text
);

-- What the journal held before its first row, once older rows are pruned: the state after
-- every row up to `seq` (JSON written and read by the crate), and the time the prune cut at.
CREATE TABLE IF NOT EXISTS lanes_journal_start (
    seq bigint PRIMARY KEY,
    before timestamptz NOT NULL,
    state text NOT NULL
);

-- The one insert into the journal: every transition calls it once per row it journals.
CREATE OR REPLACE FUNCTION lanes_journal_write(
    j_op text, j_code text, j_via text DEFAULT NULL, j_queue text DEFAULT NULL,
    j_project text DEFAULT NULL, j_run text DEFAULT NULL, j_generation bigint DEFAULT NULL,
    j_reservation bigint DEFAULT NULL, j_state text DEFAULT NULL, j_outcome text DEFAULT NULL,
    j_saved boolean DEFAULT NULL, j_stop_requested boolean DEFAULT NULL)
RETURNS void
LANGUAGE plpgsql AS $$
BEGIN
    INSERT INTO lanes_journal (op, via, code, queue, project, run, generation, reservation,
                               state, outcome, saved, stop_requested)
    VALUES (j_op, j_via, j_code, j_queue, j_project, j_run, j_generation, j_reservation,
            j_state, j_outcome, j_saved, j_stop_requested);
END $$;

-- The dispatcher lock: a dispatch and recovery take it alone, the transitions that change a lane
-- a dispatch looks at take it shared, before any other lock.
CREATE OR REPLACE FUNCTION lanes_dispatcher_lock() RETURNS void
LANGUAGE sql AS $$
    SELECT pg_advisory_xact_lock(hashtext('project-lanes-pg dispatcher ' || current_schema()))
$$;

CREATE OR REPLACE FUNCTION lanes_dispatcher_lock_shared() RETURNS void
LANGUAGE sql AS $$
    SELECT pg_advisory_xact_lock_shared(
        hashtext('project-lanes-pg dispatcher ' || current_schema()))
$$;

-- A direct claim: the lane if it is idle and unblocked, with a new generation and token
-- (PROJECT_BUSY when no row comes back). A function's statements each take a fresh snapshot, so
-- the lane row is read after the dispatcher lock is granted.
CREATE OR REPLACE FUNCTION lanes_claim(p_project text, p_run text, p_pid integer,
                                       p_started timestamptz, p_key bigint)
RETURNS TABLE (o_generation bigint, o_token text)
LANGUAGE plpgsql AS $$
BEGIN
    PERFORM lanes_dispatcher_lock_shared();
    INSERT INTO lanes AS l (project, generation, run, token, owner_pid, owner_started,
                            owner_key)
    VALUES (p_project, 1, p_run, gen_random_uuid()::text, p_pid, p_started, p_key)
    ON CONFLICT (project) DO UPDATE
        SET generation = l.generation + 1, run = excluded.run, token = excluded.token,
            stop_requested = false, owner_pid = excluded.owner_pid,
            owner_started = excluded.owner_started, owner_key = excluded.owner_key,
            orphaned_generation = NULL
        WHERE l.run IS NULL AND l.blocked_by IS NULL
    RETURNING l.generation, l.token INTO o_generation, o_token;
    PERFORM lanes_journal_write('claim',
        CASE WHEN o_token IS NULL THEN 'PROJECT_BUSY' ELSE 'OK' END,
        j_project => p_project, j_run => p_run, j_generation => o_generation);
    IF o_token IS NOT NULL THEN
        RETURN NEXT;
    END IF;
END $$;

-- A stop request by the lease's token; the lane stays held. Returns the holder's run.
CREATE OR REPLACE FUNCTION lanes_request_stop(p_project text, p_token text, p_run text,
                                              p_generation bigint)
RETURNS TABLE (o_run text)
LANGUAGE plpgsql AS $$
BEGIN
    UPDATE lanes SET stop_requested = true WHERE project = p_project AND token = p_token
    RETURNING run INTO o_run;
    PERFORM lanes_journal_write('request_stop',
        CASE WHEN o_run IS NULL THEN 'LEASE_NOT_CURRENT' ELSE 'OK' END,
        j_project => p_project, j_run => p_run, j_generation => p_generation);
    IF o_run IS NOT NULL THEN
        RETURN NEXT;
    END IF;
END $$;

-- A release by the lease's token; returns the stop request.
CREATE OR REPLACE FUNCTION lanes_release(p_project text, p_token text, p_run text,
                                         p_generation bigint, p_outcome text)
RETURNS TABLE (o_stop_requested boolean)
LANGUAGE plpgsql AS $$
BEGIN
    PERFORM lanes_dispatcher_lock_shared();
    UPDATE lanes SET run = NULL, token = NULL, owner_pid = NULL, owner_started = NULL,
        owner_key = NULL, orphaned_generation = NULL
    WHERE project = p_project AND token = p_token
    RETURNING stop_requested INTO o_stop_requested;
    PERFORM lanes_journal_write('release',
        CASE WHEN o_stop_requested IS NULL THEN 'LEASE_NOT_CURRENT' ELSE 'OK' END,
        j_project => p_project, j_run => p_run, j_generation => p_generation,
        j_outcome => p_outcome, j_stop_requested => o_stop_requested);
    IF o_stop_requested IS NOT NULL THEN
        RETURN NEXT;
    END IF;
END $$;

-- An orphaned lane freed; returns the dead holder's run and the stop request (no row: the lane
-- is not flagged orphaned, and nothing is journaled).
CREATE OR REPLACE FUNCTION lanes_resolve_orphan(p_project text)
RETURNS TABLE (o_run text, o_stop_requested boolean)
LANGUAGE plpgsql AS $$
DECLARE
    v_generation bigint;
BEGIN
    PERFORM lanes_dispatcher_lock_shared();
    SELECT run, generation INTO o_run, v_generation FROM lanes
    WHERE project = p_project AND orphaned_generation IS NOT NULL FOR UPDATE;
    IF NOT FOUND THEN
        RETURN;
    END IF;
    UPDATE lanes SET run = NULL, token = NULL, owner_pid = NULL, owner_started = NULL,
        owner_key = NULL, orphaned_generation = NULL
    WHERE project = p_project
    RETURNING stop_requested INTO o_stop_requested;
    PERFORM lanes_journal_write('release', 'OK', j_via => 'resolve_orphan',
        j_project => p_project, j_run => o_run, j_generation => v_generation,
        j_outcome => 'needs_review', j_stop_requested => o_stop_requested);
    RETURN NEXT;
END $$;

-- A reservation at the end of a queue this schema knows; no row if the queue is unknown.
CREATE OR REPLACE FUNCTION lanes_enqueue(p_queue text, p_project text, p_run text)
RETURNS TABLE (o_id bigint)
LANGUAGE plpgsql AS $$
BEGIN
    PERFORM 1 FROM queues WHERE name = p_queue FOR UPDATE;
    IF NOT FOUND THEN
        PERFORM lanes_journal_write('enqueue', 'UNKNOWN_QUEUE', j_queue => p_queue,
            j_project => p_project, j_run => p_run);
        RETURN;
    END IF;
    o_id := nextval('reservation_ids');
    INSERT INTO reservations (id, queue, project, run, state)
    VALUES (o_id, p_queue, p_project, p_run, 'queued');
    PERFORM lanes_journal_write('enqueue', 'OK', j_queue => p_queue, j_project => p_project,
        j_run => p_run, j_reservation => o_id, j_state => 'queued');
    RETURN NEXT;
END $$;

-- The oldest queued reservation of p_queue whose project is available: claims its lane for the
-- caller's session and marks it dispatched; no row when none can go. Dispatches of one queue are
-- serialized by the queue's row (per-queue order); the lane's row arbitrates between queues and
-- processes (one holder per project). A lane is locked only when it is idle, unblocked and not
-- locked right now (FOR UPDATE SKIP LOCKED); a locked one is skipped like a busy one, its
-- project's items keeping their place. Journaled when it hands out a job.
CREATE OR REPLACE FUNCTION lanes_dispatch(p_queue text, p_pid integer, p_started timestamptz,
                                          p_key bigint)
RETURNS TABLE (o_id bigint, o_project text, o_run text, o_generation bigint)
LANGUAGE plpgsql AS $$
DECLARE
    c record;
    g bigint;
    t text;
    tried text[] := '{}';
BEGIN
    PERFORM lanes_dispatcher_lock();
    PERFORM 1 FROM queues WHERE name = p_queue FOR UPDATE;
    LOOP
        SELECT r.id, r.project, r.run INTO c FROM reservations r
        WHERE r.queue = p_queue AND r.state = 'queued' AND r.project <> ALL (tried)
          AND NOT EXISTS (SELECT 1 FROM lanes l WHERE l.project = r.project
                          AND (l.run IS NOT NULL OR l.blocked_by IS NOT NULL))
        ORDER BY r.id LIMIT 1;
        IF NOT FOUND THEN
            RETURN;
        END IF;
        -- A cancel that committed first wins; one waiting on this row sees 'dispatched'.
        UPDATE reservations SET state = 'dispatched' WHERE id = c.id AND state = 'queued';
        IF NOT FOUND THEN
            CONTINUE;
        END IF;
        t := gen_random_uuid()::text;
        PERFORM 1 FROM lanes l
        WHERE l.project = c.project AND l.run IS NULL AND l.blocked_by IS NULL
        FOR UPDATE SKIP LOCKED;
        IF FOUND THEN
            UPDATE lanes l SET generation = l.generation + 1, run = c.run, token = t,
                stop_requested = false, owner_pid = p_pid, owner_started = p_started,
                owner_key = p_key, orphaned_generation = NULL
            WHERE l.project = c.project
            RETURNING l.generation INTO g;
        ELSE
            -- No row yet (the project's first claim), or busy, blocked or locked: DO NOTHING
            -- neither locks nor waits for an existing row.
            INSERT INTO lanes (project, generation, run, token, owner_pid, owner_started,
                               owner_key)
            VALUES (c.project, 1, c.run, t, p_pid, p_started, p_key)
            ON CONFLICT (project) DO NOTHING
            RETURNING generation INTO g;
        END IF;
        IF g IS NULL THEN
            -- Taken or blocked by a direct claim (a lane row locked now can only be a direct
            -- lane operation's: dispatcher transitions hold the dispatcher lock): keep the
            -- item, skip its project.
            UPDATE reservations SET state = 'queued' WHERE id = c.id;
            tried := tried || c.project;
            CONTINUE;
        END IF;
        UPDATE reservations SET generation = g, token = t WHERE id = c.id;
        PERFORM lanes_journal_write('dispatch', 'OK', j_queue => p_queue,
            j_project => c.project, j_run => c.run, j_generation => g, j_reservation => c.id,
            j_state => 'dispatched');
        o_id := c.id; o_project := c.project; o_run := c.run; o_generation := g;
        RETURN NEXT;
        RETURN;
    END LOOP;
END $$;

-- The work returned: record the outcome; the lane stays held.
CREATE OR REPLACE FUNCTION lanes_finish(p_id bigint, p_outcome text)
RETURNS TABLE (o_code text, o_project text, o_run text)
LANGUAGE plpgsql AS $$
DECLARE r record;
BEGIN
    SELECT * INTO r FROM reservations WHERE id = p_id FOR UPDATE;
    IF NOT FOUND THEN
        o_code := 'UNKNOWN_RESERVATION';
    ELSIF r.state <> 'dispatched' THEN
        o_code := 'NOT_DISPATCHED';
        PERFORM lanes_journal_write('finish', o_code, j_reservation => p_id,
            j_outcome => p_outcome);
    ELSE
        UPDATE reservations SET state = 'persisting', outcome = p_outcome WHERE id = p_id;
        o_code := 'OK'; o_project := r.project; o_run := r.run;
        PERFORM lanes_journal_write('finish', 'OK', j_queue => r.queue, j_project => r.project,
            j_run => r.run, j_reservation => p_id, j_state => 'persisting',
            j_outcome => p_outcome);
    END IF;
    RETURN NEXT;
END $$;

-- The final state was saved (or not): release the lane with the reservation's own token.
CREATE OR REPLACE FUNCTION lanes_persisted(p_id bigint, p_saved boolean)
RETURNS TABLE (o_code text, o_state text, o_project text, o_run text, o_outcome text,
               o_stop boolean)
LANGUAGE plpgsql AS $$
DECLARE
    r record;
    v_outcome text;
    v_stop boolean;
BEGIN
    PERFORM lanes_dispatcher_lock_shared();
    SELECT * INTO r FROM reservations WHERE id = p_id FOR UPDATE;
    IF NOT FOUND THEN
        o_code := 'UNKNOWN_RESERVATION'; RETURN NEXT; RETURN;
    ELSIF r.state <> 'persisting' THEN
        o_code := 'NOT_PERSISTING';
    ELSE
        v_outcome := CASE WHEN p_saved THEN r.outcome ELSE 'needs_review' END;
        UPDATE lanes SET run = NULL, token = NULL, owner_pid = NULL, owner_started = NULL,
            owner_key = NULL, orphaned_generation = NULL,
            blocked_by = CASE WHEN v_outcome = 'needs_review' THEN p_id END
        WHERE project = r.project AND token = r.token
        RETURNING stop_requested INTO v_stop;
        IF NOT FOUND THEN
            o_code := 'NOT_PERSISTING';
        END IF;
    END IF;
    IF o_code IS NOT NULL THEN
        PERFORM lanes_journal_write('persist', o_code, j_reservation => p_id,
            j_saved => p_saved);
        RETURN NEXT;
        RETURN;
    END IF;
    o_state := CASE WHEN v_outcome = 'needs_review' THEN 'unresolved' ELSE 'done' END;
    UPDATE reservations SET state = o_state, outcome = v_outcome, token = NULL WHERE id = p_id;
    PERFORM lanes_journal_write('persist', 'OK', j_queue => r.queue, j_project => r.project,
        j_run => r.run, j_reservation => p_id, j_state => o_state, j_outcome => v_outcome,
        j_saved => p_saved, j_stop_requested => v_stop);
    o_code := 'OK'; o_project := r.project; o_run := r.run; o_outcome := v_outcome;
    o_stop := v_stop;
    RETURN NEXT;
END $$;

-- A queued reservation cancelled: OK with the reservation, or the refusal's code. A dispatch
-- that waited for its row sees it cancelled and takes the next item.
CREATE OR REPLACE FUNCTION lanes_cancel(p_id bigint)
RETURNS TABLE (o_code text, o_id bigint, o_queue text, o_project text, o_run text,
               o_state text, o_outcome text)
LANGUAGE plpgsql AS $$
DECLARE r record;
BEGIN
    SELECT * INTO r FROM reservations WHERE id = p_id FOR UPDATE;
    IF NOT FOUND THEN
        o_code := 'UNKNOWN_RESERVATION';
    ELSIF r.state <> 'queued' THEN
        o_code := 'NOT_QUEUED';
        PERFORM lanes_journal_write('cancel', o_code, j_reservation => p_id);
    ELSE
        UPDATE reservations SET state = 'cancelled' WHERE id = p_id;
        o_code := 'OK'; o_id := r.id; o_queue := r.queue; o_project := r.project;
        o_run := r.run; o_state := 'cancelled'; o_outcome := r.outcome;
        PERFORM lanes_journal_write('cancel', 'OK', j_queue => r.queue, j_project => r.project,
            j_run => r.run, j_reservation => p_id, j_state => 'cancelled',
            j_outcome => r.outcome);
    END IF;
    RETURN NEXT;
END $$;

-- A person looked at an unresolved result: the project is available again.
CREATE OR REPLACE FUNCTION lanes_resolve(p_id bigint) RETURNS text
LANGUAGE plpgsql AS $$
DECLARE r record;
BEGIN
    PERFORM lanes_dispatcher_lock_shared();
    SELECT * INTO r FROM reservations WHERE id = p_id FOR UPDATE;
    IF NOT FOUND THEN
        RETURN 'UNKNOWN_RESERVATION';
    ELSIF r.state <> 'unresolved' THEN
        PERFORM lanes_journal_write('resolve', 'NOT_UNRESOLVED', j_reservation => p_id);
        RETURN 'NOT_UNRESOLVED';
    END IF;
    UPDATE reservations SET state = 'resolved' WHERE id = p_id;
    UPDATE lanes SET blocked_by = NULL WHERE project = r.project AND blocked_by = p_id;
    PERFORM lanes_journal_write('resolve', 'OK', j_queue => r.queue, j_project => r.project,
        j_run => r.run, j_reservation => p_id, j_state => 'resolved', j_outcome => r.outcome);
    RETURN 'OK';
END $$;

-- Lanes whose holder's session is gone. A lane held for a reservation is released as
-- needs_review and its reservation becomes unresolved (blocking the project); a lane held
-- directly is flagged orphaned and stays held. Nothing is released silently or replayed.
-- p_key is the caller's own session key: its own lanes are alive (taking its own key would
-- succeed).
CREATE OR REPLACE FUNCTION lanes_recover(p_key bigint)
RETURNS TABLE (o_project text, o_run text, o_generation bigint, o_reservation bigint)
LANGUAGE plpgsql AS $$
DECLARE
    held text[];
    rec record;
    rr record;
BEGIN
    PERFORM lanes_dispatcher_lock();
    PERFORM pg_advisory_xact_lock(hashtext('project-lanes-pg recover ' || current_schema()));
    PERFORM 1 FROM reservations WHERE state IN ('dispatched', 'persisting')
        ORDER BY id FOR UPDATE;
    SELECT coalesce(array_agg(project), '{}') INTO held FROM (
        SELECT project FROM lanes WHERE run IS NOT NULL AND orphaned_generation IS NULL
        ORDER BY project FOR UPDATE) s;
    -- Liveness is first asked here, after the locks: every holder of a locked lane had taken
    -- its session lock (or started its session) before, so a free key, or a session visibly
    -- gone, really has ended.
    FOR rec IN SELECT l.project, l.run, l.generation, l.token, l.owner_key, l.owner_pid,
                      l.owner_started, l.stop_requested
        FROM lanes l WHERE l.project = ANY (held) ORDER BY l.project
    LOOP
        IF rec.owner_key IS NOT NULL THEN
            IF rec.owner_key = p_key OR NOT pg_try_advisory_xact_lock(rec.owner_key) THEN
                CONTINUE;
            END IF;
        ELSIF EXISTS (SELECT 1 FROM pg_stat_activity a
                      WHERE a.pid = rec.owner_pid
                        AND (a.backend_start = rec.owner_started OR a.backend_start IS NULL)) THEN
            CONTINUE;
        END IF;
        SELECT id, queue, state FROM reservations INTO rr
        WHERE state IN ('dispatched', 'persisting') AND token = rec.token;
        IF FOUND THEN
            UPDATE reservations SET state = 'unresolved', outcome = 'needs_review', token = NULL
            WHERE id = rr.id;
            UPDATE lanes SET run = NULL, token = NULL, owner_pid = NULL, owner_started = NULL,
                owner_key = NULL, orphaned_generation = NULL, blocked_by = rr.id
            WHERE project = rec.project;
            IF rr.state = 'dispatched' THEN
                PERFORM lanes_journal_write('finish', 'OK', j_via => 'recover',
                    j_queue => rr.queue, j_project => rec.project, j_run => rec.run,
                    j_reservation => rr.id, j_state => 'persisting',
                    j_outcome => 'needs_review');
            END IF;
            PERFORM lanes_journal_write('persist', 'OK', j_via => 'recover', j_queue => rr.queue,
                j_project => rec.project, j_run => rec.run, j_reservation => rr.id,
                j_state => 'unresolved', j_outcome => 'needs_review', j_saved => false,
                j_stop_requested => rec.stop_requested);
            o_reservation := rr.id;
        ELSE
            UPDATE lanes SET orphaned_generation = generation WHERE project = rec.project;
            o_reservation := NULL;
        END IF;
        o_project := rec.project; o_run := rec.run; o_generation := rec.generation;
        RETURN NEXT;
    END LOOP;
END $$;
