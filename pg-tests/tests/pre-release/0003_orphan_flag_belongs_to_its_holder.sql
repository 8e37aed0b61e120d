-- Version 3: an orphan flag belongs to the holder it was set for.
--
-- Version 2 kept a boolean `orphaned` that release and claim never cleared: once the flagged
-- holder's lease was released, the next (live) holder inherited the flag, was listed as an
-- orphan, and lanes' resolve_orphan freed its lane while it ran. The flag is now the generation
-- of the holder it was set for, and a constraint holds every transition to it: a flagged lane
-- has a holder, of that very generation. A claim always makes a new generation and a release
-- always empties the holder, so a transition that forgot the flag fails (23514) instead of
-- passing it on.
--
-- A version-2 flag cannot tell which holder it was set for: it is dropped, and the next recovery
-- flags again whatever holder is really gone (the lane stays held meanwhile).

ALTER TABLE lanes DROP COLUMN orphaned;
-- Set by recovery: the generation of the holder whose session was gone; the lane stays held
-- until a person resolves it, or the holder's lease releases it after all.
ALTER TABLE lanes ADD COLUMN orphaned_generation bigint;
ALTER TABLE lanes ADD CONSTRAINT lanes_orphan_is_the_current_holder
    CHECK (orphaned_generation IS NULL
           OR (run IS NOT NULL AND orphaned_generation = generation));

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
        orphaned_generation = NULL,
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

-- As in version 1, with the flag set to the dead holder's generation, and only on lanes not
-- flagged yet.
CREATE OR REPLACE FUNCTION lanes_recover()
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
                orphaned_generation = NULL, blocked_by = rid
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
