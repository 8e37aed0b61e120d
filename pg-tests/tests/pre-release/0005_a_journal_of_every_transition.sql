-- Version 5: a journal of every transition, written in the transition's own transaction.
--
-- Every claim, stop request and release (refusals included), every enqueue, dispatch that handed
-- out a job, finish, persist, cancel and resolve (refusals included), and what recovery and
-- resolve_orphan did, is one row of lanes_journal, inserted by the very statement or function
-- that makes the transition: the journal can never disagree with the state. `lanes-pg export`
-- turns it into a record and `lanes-pg audit` replays it on the in-memory core.
--
-- The order that replays is `seq`, drawn from a sequence after the transition's locks are taken:
--
-- - Lane operations on one project wait for its lane row (a claim's INSERT … ON CONFLICT DO
--   UPDATE locks the row even when it refuses), so a later one draws a later number; one that is
--   refused without a lock (a stale token) saw the change that made it stale committed, and that
--   change drew its number before committing. Operations on different projects commute.
-- - A dispatch's result depends on every lane and queue it looked at, and lanes_dispatch skips a
--   lane row locked at that instant: a timing the core does not model. So a dispatch (and
--   recovery) first takes one transaction-level advisory lock per schema, the dispatcher lock,
--   alone, and the transitions that free or unblock a lane (persist, resolve) take it shared:
--   no lane changes under a dispatch's eyes, each draws its number inside the lock, and a
--   dispatch never finds a lane row locked by another dispatcher transition. The others need
--   no such lock: an enqueue holds its queue's row (as the queue's dispatches do), a finish or
--   a cancel holds its reservation's row (taken first, refusals too), and they change nothing
--   a dispatch of another reservation looks at. The dispatcher lock comes before every other
--   lock (queue row, reservation rows, lane rows).
-- - A call naming a reservation that does not exist (UNKNOWN_RESERVATION) is not journaled: no
--   record can name it, and its refusal would depend on an enqueue not yet committed.
--
-- What a transition did that is not a core operation is recorded as the core operations with
-- the same effect, and `via` says what really happened:
--
-- - resolve_orphan: a release of the dead holder's lease (its generation) with needs_review;
-- - recovery of a reservation whose holder died: a finish with needs_review (if it was
--   dispatched) and a persist that was not saved, which in the core makes it unresolved with
--   needs_review and blocks its project, as recovery does.
--
-- Recovery's orphan flag on a lane held directly changes nothing the core shows (the lane stays
-- held by the same lease): it is not journaled.

-- The caller's actor: set per session by the crate (project_lanes.actor), else role/pid.
CREATE FUNCTION lanes_journal_actor() RETURNS text
LANGUAGE sql STABLE AS $$
    SELECT coalesce(nullif(current_setting('project_lanes.actor', true), ''),
                    session_user || '/' || pg_backend_pid())
$$;

-- The dispatcher lock: a dispatch (and recovery) takes it alone, the transitions that free or
-- unblock a lane (persist, resolve) take it shared, before any other lock.
CREATE FUNCTION lanes_dispatcher_lock() RETURNS void
LANGUAGE sql AS $$
    SELECT pg_advisory_xact_lock(hashtext('project-lanes-pg dispatcher ' || current_schema()))
$$;

CREATE FUNCTION lanes_dispatcher_lock_shared() RETURNS void
LANGUAGE sql AS $$
    SELECT pg_advisory_xact_lock_shared(
        hashtext('project-lanes-pg dispatcher ' || current_schema()))
$$;

CREATE SEQUENCE lanes_journal_seq;

CREATE TABLE lanes_journal (
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
CREATE INDEX lanes_journal_at ON lanes_journal (at);

-- What the journal held before its first row, once older rows are pruned: the state after
-- every row up to `seq` (JSON written and read by the crate), and the time the prune cut at.
CREATE TABLE lanes_journal_start (
    seq bigint PRIMARY KEY,
    before timestamptz NOT NULL,
    state text NOT NULL
);

-- A reservation at the end of a queue this schema knows; no row if the queue is unknown.
CREATE FUNCTION lanes_enqueue(p_queue text, p_project text, p_run text)
RETURNS TABLE (o_id bigint)
LANGUAGE plpgsql AS $$
BEGIN
    -- The queue's row orders it with the queue's dispatches; other transitions commute with it.
    PERFORM 1 FROM queues WHERE name = p_queue FOR UPDATE;
    IF NOT FOUND THEN
        INSERT INTO lanes_journal (op, code, queue, project, run)
        VALUES ('enqueue', 'UNKNOWN_QUEUE', p_queue, p_project, p_run);
        RETURN;
    END IF;
    o_id := nextval('reservation_ids');
    INSERT INTO reservations (id, queue, project, run, state)
    VALUES (o_id, p_queue, p_project, p_run, 'queued');
    INSERT INTO lanes_journal (op, code, queue, project, run, reservation, state)
    VALUES ('enqueue', 'OK', p_queue, p_project, p_run, o_id, 'queued');
    RETURN NEXT;
END $$;

-- As in version 4, under the dispatcher lock, journaled when it hands out a job.
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
            INSERT INTO lanes (project, generation, run, token, owner_pid, owner_started,
                               owner_key)
            VALUES (c.project, 1, c.run, t, p_pid, p_started, p_key)
            ON CONFLICT (project) DO NOTHING
            RETURNING generation INTO g;
        END IF;
        IF g IS NULL THEN
            -- Taken or blocked by a direct claim (a lane row locked now can only be a direct
            -- lane operation's: dispatcher transitions hold the dispatcher lock).
            UPDATE reservations SET state = 'queued' WHERE id = c.id;
            tried := tried || c.project;
            CONTINUE;
        END IF;
        UPDATE reservations SET generation = g, token = t WHERE id = c.id;
        INSERT INTO lanes_journal (op, code, queue, project, run, generation, reservation,
                                   state)
        VALUES ('dispatch', 'OK', p_queue, c.project, c.run, g, c.id, 'dispatched');
        o_id := c.id; o_project := c.project; o_run := c.run; o_generation := g;
        RETURN NEXT;
        RETURN;
    END LOOP;
END $$;

-- As in version 1, journaled. Its reservation's row, locked first, orders it with every other
-- transition of that reservation; it changes nothing a dispatch looks at.
CREATE OR REPLACE FUNCTION lanes_finish(p_id bigint, p_outcome text)
RETURNS TABLE (o_code text, o_project text, o_run text)
LANGUAGE plpgsql AS $$
DECLARE r record;
BEGIN
    SELECT * INTO r FROM reservations WHERE id = p_id FOR UPDATE;
    IF NOT FOUND THEN
        -- Not journaled: no record can name a reservation that does not exist.
        o_code := 'UNKNOWN_RESERVATION';
    ELSIF r.state <> 'dispatched' THEN
        o_code := 'NOT_DISPATCHED';
        INSERT INTO lanes_journal (op, code, reservation, outcome)
        VALUES ('finish', o_code, p_id, p_outcome);
    ELSE
        UPDATE reservations SET state = 'persisting', outcome = p_outcome WHERE id = p_id;
        o_code := 'OK'; o_project := r.project; o_run := r.run;
        INSERT INTO lanes_journal (op, code, queue, project, run, reservation, state, outcome)
        VALUES ('finish', 'OK', r.queue, r.project, r.run, p_id, 'persisting', p_outcome);
    END IF;
    RETURN NEXT;
END $$;

-- As in version 4, under the dispatcher lock taken shared (it frees a lane a dispatch may look
-- at), journaled.
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
        -- Not journaled: no record can name a reservation that does not exist.
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
        INSERT INTO lanes_journal (op, code, reservation, saved)
        VALUES ('persist', o_code, p_id, p_saved);
        RETURN NEXT;
        RETURN;
    END IF;
    o_state := CASE WHEN v_outcome = 'needs_review' THEN 'unresolved' ELSE 'done' END;
    UPDATE reservations SET state = o_state, outcome = v_outcome, token = NULL WHERE id = p_id;
    INSERT INTO lanes_journal (op, code, queue, project, run, reservation, state, outcome,
                               saved, stop_requested)
    VALUES ('persist', 'OK', r.queue, r.project, r.run, p_id, o_state, v_outcome, p_saved,
            v_stop);
    o_code := 'OK'; o_project := r.project; o_run := r.run; o_outcome := v_outcome;
    o_stop := v_stop;
    RETURN NEXT;
END $$;

-- A queued reservation cancelled: OK with the reservation, or the refusal's code. Its row,
-- locked first, orders it with a dispatch of it (one wins); a dispatch that waited for it sees
-- it cancelled and takes the next item.
CREATE FUNCTION lanes_cancel(p_id bigint)
RETURNS TABLE (o_code text, o_id bigint, o_queue text, o_project text, o_run text,
               o_state text, o_outcome text)
LANGUAGE plpgsql AS $$
DECLARE r record;
BEGIN
    SELECT * INTO r FROM reservations WHERE id = p_id FOR UPDATE;
    IF NOT FOUND THEN
        -- Not journaled: no record can name a reservation that does not exist.
        o_code := 'UNKNOWN_RESERVATION';
    ELSIF r.state <> 'queued' THEN
        o_code := 'NOT_QUEUED';
        INSERT INTO lanes_journal (op, code, reservation) VALUES ('cancel', o_code, p_id);
    ELSE
        UPDATE reservations SET state = 'cancelled' WHERE id = p_id;
        o_code := 'OK'; o_id := r.id; o_queue := r.queue; o_project := r.project;
        o_run := r.run; o_state := 'cancelled'; o_outcome := r.outcome;
        INSERT INTO lanes_journal (op, code, queue, project, run, reservation, state, outcome)
        VALUES ('cancel', 'OK', r.queue, r.project, r.run, p_id, 'cancelled', r.outcome);
    END IF;
    RETURN NEXT;
END $$;

-- As in version 1, under the dispatcher lock taken shared (it unblocks a lane), journaled.
CREATE OR REPLACE FUNCTION lanes_resolve(p_id bigint) RETURNS text
LANGUAGE plpgsql AS $$
DECLARE
    r record;
    v_code text;
BEGIN
    PERFORM lanes_dispatcher_lock_shared();
    SELECT * INTO r FROM reservations WHERE id = p_id FOR UPDATE;
    IF NOT FOUND THEN
        -- Not journaled: no record can name a reservation that does not exist.
        RETURN 'UNKNOWN_RESERVATION';
    ELSIF r.state <> 'unresolved' THEN
        v_code := 'NOT_UNRESOLVED';
    END IF;
    IF v_code IS NOT NULL THEN
        INSERT INTO lanes_journal (op, code, reservation) VALUES ('resolve', v_code, p_id);
        RETURN v_code;
    END IF;
    UPDATE reservations SET state = 'resolved' WHERE id = p_id;
    UPDATE lanes SET blocked_by = NULL WHERE project = r.project AND blocked_by = p_id;
    INSERT INTO lanes_journal (op, code, queue, project, run, reservation, state, outcome)
    VALUES ('resolve', 'OK', r.queue, r.project, r.run, p_id, 'resolved', r.outcome);
    RETURN 'OK';
END $$;

-- As in version 4, under the dispatcher lock (taken first, before recovery's own), with what it
-- did to reservations journaled as the core operations of the same effect.
CREATE OR REPLACE FUNCTION lanes_recover(p_key bigint)
RETURNS TABLE (o_project text, o_run text, o_generation bigint, o_reservation bigint)
LANGUAGE plpgsql AS $$
DECLARE
    held text[];
    rec record;
    rr record;
    v_stop boolean;
BEGIN
    PERFORM lanes_dispatcher_lock();
    PERFORM pg_advisory_xact_lock(hashtext('project-lanes-pg recover ' || current_schema()));
    PERFORM 1 FROM reservations WHERE state IN ('dispatched', 'persisting')
        ORDER BY id FOR UPDATE;
    SELECT coalesce(array_agg(project), '{}') INTO held FROM (
        SELECT project FROM lanes WHERE run IS NOT NULL AND orphaned_generation IS NULL
        ORDER BY project FOR UPDATE) s;
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
                INSERT INTO lanes_journal (op, via, code, queue, project, run, reservation,
                                           state, outcome)
                VALUES ('finish', 'recover', 'OK', rr.queue, rec.project, rec.run, rr.id,
                        'persisting', 'needs_review');
            END IF;
            INSERT INTO lanes_journal (op, via, code, queue, project, run, reservation, state,
                                       outcome, saved, stop_requested)
            VALUES ('persist', 'recover', 'OK', rr.queue, rec.project, rec.run, rr.id,
                    'unresolved', 'needs_review', false, rec.stop_requested);
            o_reservation := rr.id;
        ELSE
            UPDATE lanes SET orphaned_generation = generation WHERE project = rec.project;
            o_reservation := NULL;
        END IF;
        o_project := rec.project; o_run := rec.run; o_generation := rec.generation;
        RETURN NEXT;
    END LOOP;
END $$;
