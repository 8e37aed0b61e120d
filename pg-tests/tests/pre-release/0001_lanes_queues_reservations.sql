-- Version 1: lanes, queues, reservations.
--
-- Every transition is one statement or one function call: one round trip, one transaction.
-- Lock order everywhere: queue row, reservation rows, lane rows. (Its dispatch could wait for a
-- second lane while holding a first: see 0002.)

-- This set of lanes' identity: leases of another schema (or database) are not current here.
CREATE TABLE lanes_identity (id text NOT NULL);
INSERT INTO lanes_identity VALUES (gen_random_uuid()::text);

-- One row per project ever claimed; idle lanes keep their generation.
CREATE TABLE lanes (
    project text PRIMARY KEY,
    -- Claims so far: the fencing generation of the current (or last) lease.
    generation bigint NOT NULL,
    -- The holder (NULL when idle) and its private token.
    run text,
    token text,
    stop_requested boolean NOT NULL DEFAULT false,
    -- The holder's database session, for recovery: its backend pid and start time.
    owner_pid integer,
    owner_started timestamptz,
    -- Set by recovery: the holder's session is gone; the lane stays held until resolved.
    orphaned boolean NOT NULL DEFAULT false,
    -- An unresolved reservation of this project: no claim and no dispatch until resolved.
    blocked_by bigint
);

CREATE TABLE queues (name text PRIMARY KEY);

CREATE SEQUENCE reservation_ids;

CREATE TABLE reservations (
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
CREATE INDEX reservations_queued ON reservations (queue, id) WHERE state = 'queued';
CREATE INDEX reservations_in_flight ON reservations (token)
    WHERE state IN ('dispatched', 'persisting');

-- The oldest queued reservation of p_queue whose project is available: claims its lane and
-- marks it dispatched. Dispatches of one queue are serialized by the queue's row lock (per-queue
-- order); the lane's row arbitrates between queues and processes (one holder per project).
CREATE FUNCTION lanes_dispatch(p_queue text, p_pid integer, p_started timestamptz)
RETURNS TABLE (o_id bigint, o_project text, o_run text, o_generation bigint)
LANGUAGE plpgsql AS $$
DECLARE
    c record;
    g bigint;
    t text;
    tried text[] := '{}';
BEGIN
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
        INSERT INTO lanes AS l (project, generation, run, token, owner_pid, owner_started)
        VALUES (c.project, 1, c.run, t, p_pid, p_started)
        ON CONFLICT (project) DO UPDATE
            SET generation = l.generation + 1, run = excluded.run, token = excluded.token,
                stop_requested = false, owner_pid = excluded.owner_pid,
                owner_started = excluded.owner_started
            WHERE l.run IS NULL AND l.blocked_by IS NULL
        RETURNING l.generation INTO g;
        IF NOT FOUND THEN
            -- Taken or blocked since the search: keep the item, skip its project.
            UPDATE reservations SET state = 'queued' WHERE id = c.id;
            tried := tried || c.project;
            CONTINUE;
        END IF;
        UPDATE reservations SET generation = g, token = t WHERE id = c.id;
        o_id := c.id; o_project := c.project; o_run := c.run; o_generation := g;
        RETURN NEXT;
        RETURN;
    END LOOP;
END $$;

-- The work returned: record the outcome; the lane stays held.
CREATE FUNCTION lanes_finish(p_id bigint, p_outcome text)
RETURNS TABLE (o_code text, o_project text, o_run text)
LANGUAGE plpgsql AS $$
DECLARE r record;
BEGIN
    UPDATE reservations SET state = 'persisting', outcome = p_outcome
    WHERE id = p_id AND state = 'dispatched' RETURNING project, run INTO r;
    IF FOUND THEN
        o_code := 'OK'; o_project := r.project; o_run := r.run;
    ELSIF EXISTS (SELECT 1 FROM reservations WHERE id = p_id) THEN
        o_code := 'NOT_DISPATCHED';
    ELSE
        o_code := 'UNKNOWN_RESERVATION';
    END IF;
    RETURN NEXT;
END $$;

-- The final state was saved (or not): release the lane with the reservation's own token.
CREATE FUNCTION lanes_persisted(p_id bigint, p_saved boolean)
RETURNS TABLE (o_code text, o_state text, o_project text, o_run text, o_outcome text,
               o_stop boolean)
LANGUAGE plpgsql AS $$
DECLARE
    r record;
    v_outcome text;
    v_stop boolean;
BEGIN
    SELECT * INTO r FROM reservations WHERE id = p_id FOR UPDATE;
    IF NOT FOUND THEN
        o_code := 'UNKNOWN_RESERVATION'; RETURN NEXT; RETURN;
    END IF;
    IF r.state <> 'persisting' THEN
        o_code := 'NOT_PERSISTING'; RETURN NEXT; RETURN;
    END IF;
    v_outcome := CASE WHEN p_saved THEN r.outcome ELSE 'needs_review' END;
    UPDATE lanes SET run = NULL, token = NULL, owner_pid = NULL, owner_started = NULL,
        blocked_by = CASE WHEN v_outcome = 'needs_review' THEN p_id END
    WHERE project = r.project AND token = r.token
    RETURNING stop_requested INTO v_stop;
    IF NOT FOUND THEN
        o_code := 'NOT_PERSISTING'; RETURN NEXT; RETURN;
    END IF;
    o_state := CASE WHEN v_outcome = 'needs_review' THEN 'unresolved' ELSE 'done' END;
    UPDATE reservations SET state = o_state, outcome = v_outcome, token = NULL WHERE id = p_id;
    o_code := 'OK'; o_project := r.project; o_run := r.run; o_outcome := v_outcome;
    o_stop := v_stop;
    RETURN NEXT;
END $$;

-- A person looked at an unresolved result: the project is available again.
CREATE FUNCTION lanes_resolve(p_id bigint) RETURNS text
LANGUAGE plpgsql AS $$
DECLARE r record;
BEGIN
    SELECT * INTO r FROM reservations WHERE id = p_id FOR UPDATE;
    IF NOT FOUND THEN
        RETURN 'UNKNOWN_RESERVATION';
    END IF;
    IF r.state <> 'unresolved' THEN
        RETURN 'NOT_UNRESOLVED';
    END IF;
    UPDATE reservations SET state = 'resolved' WHERE id = p_id;
    UPDATE lanes SET blocked_by = NULL WHERE project = r.project AND blocked_by = p_id;
    RETURN 'OK';
END $$;

-- Lanes whose holder's session is gone. A lane held for a reservation is released as
-- needs_review and its reservation becomes unresolved (blocking the project); a lane held
-- directly is marked orphaned and stays held. Nothing is released silently or replayed.
CREATE FUNCTION lanes_recover()
RETURNS TABLE (o_project text, o_run text, o_generation bigint, o_reservation bigint)
LANGUAGE plpgsql AS $$
DECLARE
    held text[];
    rec record;
    rid bigint;
BEGIN
    PERFORM pg_advisory_xact_lock(hashtext('project-lanes-pg recover ' || current_schema()));
    PERFORM 1 FROM reservations WHERE state IN ('dispatched', 'persisting')
        ORDER BY id FOR UPDATE;
    SELECT coalesce(array_agg(project), '{}') INTO held FROM (
        SELECT project FROM lanes WHERE run IS NOT NULL AND NOT orphaned
        ORDER BY project FOR UPDATE) s;
    -- pg_stat_activity is first read here, after the locks: every holder of a locked lane
    -- had started its session before, so a missing session really has ended.
    FOR rec IN SELECT l.project, l.run, l.generation, l.token FROM lanes l
        WHERE l.project = ANY (held)
          AND NOT EXISTS (SELECT 1 FROM pg_stat_activity a
                          WHERE a.pid = l.owner_pid AND a.backend_start = l.owner_started)
        ORDER BY l.project
    LOOP
        UPDATE reservations SET state = 'unresolved', outcome = 'needs_review', token = NULL
        WHERE state IN ('dispatched', 'persisting') AND token = rec.token
        RETURNING id INTO rid;
        IF FOUND THEN
            UPDATE lanes SET run = NULL, token = NULL, owner_pid = NULL, owner_started = NULL,
                blocked_by = rid
            WHERE project = rec.project;
        ELSE
            UPDATE lanes SET orphaned = true WHERE project = rec.project;
            rid := NULL;
        END IF;
        o_project := rec.project; o_run := rec.run; o_generation := rec.generation;
        o_reservation := rid;
        RETURN NEXT;
    END LOOP;
END $$;
