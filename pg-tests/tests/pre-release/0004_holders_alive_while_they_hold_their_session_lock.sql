-- Version 4: a holder's session is alive while it holds its session lock.
--
-- Recovery used to look a holder's session up in pg_stat_activity, which shows the sessions of
-- other roles without their start time unless the reader has pg_read_all_stats: recovery run by
-- such a role took every other role's live holder for dead. Now every handle takes a
-- session-level advisory lock on a random key when it connects and holds it until its session
-- ends, and the lanes it takes record that key (owner_key). pg_try_advisory_xact_lock(key),
-- which every role may call, succeeds exactly when no session holds the key: when the holder's
-- session has ended.
--
-- Lanes taken by a process of an older version still running after the upgrade have no key:
-- they are judged by pg_stat_activity as before, except that a session of that pid whose start
-- time the caller cannot see counts as alive. Recovery never decides that a session ended from
-- what it cannot see.

ALTER TABLE lanes ADD COLUMN owner_key bigint;

-- As in version 2, recording the holder's session key.
CREATE FUNCTION lanes_dispatch(p_queue text, p_pid integer, p_started timestamptz,
                               p_key bigint)
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
        -- Lock the lane only if it is idle, unblocked and not locked by anyone right now.
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
            -- Taken, blocked or being changed since the search: keep the item, skip its project.
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

-- For processes of version 3 or older still running: their lanes carry no key.
CREATE OR REPLACE FUNCTION lanes_dispatch(p_queue text, p_pid integer, p_started timestamptz)
RETURNS TABLE (o_id bigint, o_project text, o_run text, o_generation bigint)
LANGUAGE sql AS $$ SELECT * FROM lanes_dispatch(p_queue, p_pid, p_started, NULL::bigint) $$;

-- As in version 3, also forgetting the holder's key.
CREATE OR REPLACE FUNCTION lanes_persisted(p_id bigint, p_saved boolean)
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
        owner_key = NULL, orphaned_generation = NULL,
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

-- Lanes whose holder's session is gone, as in version 3, judged by the holder's session lock.
-- p_key is the caller's own session key (its own lanes are alive; taking its own key would
-- succeed).
CREATE FUNCTION lanes_recover(p_key bigint)
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
        SELECT project FROM lanes WHERE run IS NOT NULL AND orphaned_generation IS NULL
        ORDER BY project FOR UPDATE) s;
    -- Liveness is first asked here, after the locks: every holder of a locked lane had taken
    -- its session lock (or started its session) before, so a free key, or a session visibly
    -- gone, really has ended.
    FOR rec IN SELECT l.project, l.run, l.generation, l.token, l.owner_key, l.owner_pid,
                      l.owner_started
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
        UPDATE reservations SET state = 'unresolved', outcome = 'needs_review', token = NULL
        WHERE state IN ('dispatched', 'persisting') AND token = rec.token
        RETURNING id INTO rid;
        IF FOUND THEN
            UPDATE lanes SET run = NULL, token = NULL, owner_pid = NULL, owner_started = NULL,
                owner_key = NULL, orphaned_generation = NULL, blocked_by = rid
            WHERE project = rec.project;
        ELSE
            UPDATE lanes SET orphaned_generation = generation WHERE project = rec.project;
            rid := NULL;
        END IF;
        o_project := rec.project; o_run := rec.run; o_generation := rec.generation;
        o_reservation := rid;
        RETURN NEXT;
    END LOOP;
END $$;

-- For processes of version 3 or older still running.
CREATE OR REPLACE FUNCTION lanes_recover()
RETURNS TABLE (o_project text, o_run text, o_generation bigint, o_reservation bigint)
LANGUAGE sql AS $$ SELECT * FROM lanes_recover(NULL::bigint) $$;
