-- A session's `sub:<session_key>` counter (0023) goes with the session's last subscription: until
-- now every 2025 session that ever subscribed kept its row in cache_stamps for good. The change is
-- still told first (the notification, and the counter moved), then the row is deleted if no
-- subscription of the session remains. The trigger runs at commit (deferred), so it sees what the
-- transaction leaves: a session that lets one go and takes another in the same transaction keeps
-- its row. Listening instances hear the notification as before; a poller reads the counter absent
-- (0), which differs from what it saw, reads the subscriptions again and finds none.
--
-- A row that went comes back when the session subscribes again, so these counters no longer count
-- from 1: counted, one would read 1, then 2, then be gone, then read 1 again, and a stream that
-- polled 1 before the unsubscribe and 1 after the subscribe (Workers poll every 3 s) would never
-- watch the new resource. Each change sets the counter to the next value of one sequence instead,
-- a value no `sub:` counter held before, whether or not its row went in between (pollers and
-- cursors compare counters for equality only). The sequence starts above every count held now.
CREATE SEQUENCE cache_stamps_sub_n;
--> statement-breakpoint
SELECT setval('cache_stamps_sub_n', coalesce((SELECT max(n) FROM cache_stamps WHERE key LIKE 'sub:%'), 0) + 1, false);
--> statement-breakpoint
CREATE OR REPLACE FUNCTION loadout_notify_subscription() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
  stamp_key text;
BEGIN
  IF TG_OP = 'DELETE' THEN stamp_key := 'sub:' || OLD.session_key;
  ELSE stamp_key := 'sub:' || NEW.session_key;
  END IF;
  PERFORM pg_notify('loadout_invalidate', stamp_key);
  INSERT INTO cache_stamps (key, n) VALUES (stamp_key, nextval('cache_stamps_sub_n'))
    ON CONFLICT (key) DO UPDATE SET n = excluded.n;
  IF TG_OP = 'DELETE' AND NOT EXISTS (SELECT 1 FROM mcp_resource_subscriptions s WHERE s.session_key = OLD.session_key) THEN
    DELETE FROM cache_stamps c WHERE c.key = stamp_key;
  END IF;
  RETURN NULL;
END $$;
--> statement-breakpoint
-- The rows left by sessions that hold no subscription now (a stream still open for one reads its
-- counter absent, as above, and finds none).
DELETE FROM cache_stamps c WHERE c.key LIKE 'sub:%'
  AND NOT EXISTS (SELECT 1 FROM mcp_resource_subscriptions s WHERE 'sub:' || s.session_key = c.key);
