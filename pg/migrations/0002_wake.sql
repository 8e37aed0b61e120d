-- Waking the tasks that wait: a session that waits for a lane or a job LISTENs on the schema's
-- name and marks what it waits for (`waited`); freeing a marked lane, or queueing a job in a
-- marked queue, notifies `free:PROJECT` or `queued:QUEUE` once and clears the mark. Nothing is
-- notified while nobody waits, so operations that nobody waits for pay only the trigger's WHEN.

ALTER TABLE lanes ADD COLUMN IF NOT EXISTS waited boolean NOT NULL DEFAULT false;
ALTER TABLE queues ADD COLUMN IF NOT EXISTS waited boolean NOT NULL DEFAULT false;

CREATE OR REPLACE FUNCTION lanes_wake_free() RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
    NEW.waited := false;
    PERFORM pg_notify(TG_TABLE_SCHEMA, 'free:' || NEW.project);
    RETURN NEW;
END $$;

DROP TRIGGER IF EXISTS lanes_wake_free ON lanes;
CREATE TRIGGER lanes_wake_free BEFORE UPDATE ON lanes FOR EACH ROW
    WHEN (OLD.waited AND NEW.run IS NULL AND NEW.blocked_by IS NULL)
    EXECUTE FUNCTION lanes_wake_free();

CREATE OR REPLACE FUNCTION lanes_wake_queued() RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
    UPDATE queues SET waited = false WHERE name = NEW.queue AND waited;
    IF FOUND THEN
        PERFORM pg_notify(TG_TABLE_SCHEMA, 'queued:' || NEW.queue);
    END IF;
    RETURN NULL;
END $$;

DROP TRIGGER IF EXISTS lanes_wake_queued ON reservations;
CREATE TRIGGER lanes_wake_queued AFTER INSERT ON reservations FOR EACH ROW
    EXECUTE FUNCTION lanes_wake_queued();
