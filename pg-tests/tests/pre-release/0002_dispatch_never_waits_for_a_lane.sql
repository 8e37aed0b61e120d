-- Version 2: lanes_dispatch never waits for a lane row, and locks only the lane it takes.
--
-- Version 1 claimed a lane with INSERT … ON CONFLICT DO UPDATE … WHERE idle, which locks the row
-- even when the lane turns out busy, and then went on to the next project's lane: two
-- dispatches, or a dispatch and lanes_recover (which locks held lanes in project order), could
-- each hold the lane the other waited for (40P01 deadlock detected; pg/tests/contention.rs
-- reproduces it). Now a dispatch locks a lane with FOR UPDATE SKIP LOCKED only when it is idle
-- and unblocked, and a lane that is locked right now is skipped like a busy one (its project's
-- items keep their place). The only wait left is for another session inserting the very first
-- row of the same project, which holds nothing else. So the rule for every transition is: wait
-- for at most one lane row, and only while holding no other lane row.

CREATE OR REPLACE FUNCTION lanes_dispatch(p_queue text, p_pid integer, p_started timestamptz)
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
                stop_requested = false, owner_pid = p_pid, owner_started = p_started
            WHERE l.project = c.project
            RETURNING l.generation INTO g;
        ELSE
            -- No row yet (the project's first claim), or busy, blocked or locked: DO NOTHING
            -- neither locks nor waits for an existing row.
            INSERT INTO lanes (project, generation, run, token, owner_pid, owner_started)
            VALUES (c.project, 1, c.run, t, p_pid, p_started)
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
