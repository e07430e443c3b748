CREATE TABLE "cache_stamps" (
	"key" text PRIMARY KEY NOT NULL,
	"n" bigint NOT NULL
);
--> statement-breakpoint
-- Each change the triggers of 0010 announce also bumps its key's counter, in the same
-- transaction: instances that listen hear the notification, instances that cannot (Workers)
-- read the counter. Workspace writers lock the workspace row first (services/workspaces/lock.ts),
-- so its counter's row lock adds no wait of its own.
CREATE FUNCTION loadout_touch(stamp_key text) RETURNS void LANGUAGE plpgsql AS $$
BEGIN
  PERFORM pg_notify('loadout_invalidate', stamp_key);
  INSERT INTO cache_stamps (key, n) VALUES (stamp_key, 1)
    ON CONFLICT (key) DO UPDATE SET n = cache_stamps.n + 1;
END $$;--> statement-breakpoint
CREATE OR REPLACE FUNCTION loadout_notify_user() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF TG_OP <> 'INSERT' THEN PERFORM loadout_touch('user:' || OLD.user_id); END IF;
  IF TG_OP <> 'DELETE' AND (TG_OP = 'INSERT' OR NEW.user_id IS DISTINCT FROM OLD.user_id) THEN
    PERFORM loadout_touch('user:' || NEW.user_id);
  END IF;
  RETURN NULL;
END $$;--> statement-breakpoint
CREATE OR REPLACE FUNCTION loadout_notify_grant_user() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  PERFORM loadout_touch('user:' || g.user_id) FROM oauth_grants g WHERE g.id = OLD.grant_id;
  RETURN NULL;
END $$;--> statement-breakpoint
CREATE OR REPLACE FUNCTION loadout_notify_members() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  PERFORM loadout_touch('user:' || m.user_id) FROM memberships m WHERE m.workspace_id = OLD.id;
  RETURN NULL;
END $$;--> statement-breakpoint
CREATE OR REPLACE FUNCTION loadout_notify_workspace() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF TG_OP <> 'INSERT' THEN PERFORM loadout_touch('ws:' || OLD.workspace_id); END IF;
  IF TG_OP <> 'DELETE' AND (TG_OP = 'INSERT' OR NEW.workspace_id IS DISTINCT FROM OLD.workspace_id) THEN
    PERFORM loadout_touch('ws:' || NEW.workspace_id);
  END IF;
  RETURN NULL;
END $$;
