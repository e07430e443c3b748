-- Every instance keeps hot copies of what each MCP call reads (principals, skills, servers and
-- their tools) and drops them when Postgres says they changed: these triggers send that word on
-- the channel loadout_invalidate, on commit, whatever code path (or hand-written SQL) wrote.
-- Payloads: 'user:<id>' (a principal or saved endpoint of that user changed) and 'ws:<id>' (a
-- workspace's catalog).
CREATE FUNCTION loadout_notify_user() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF TG_OP <> 'INSERT' THEN PERFORM pg_notify('loadout_invalidate', 'user:' || OLD.user_id); END IF;
  IF TG_OP <> 'DELETE' THEN PERFORM pg_notify('loadout_invalidate', 'user:' || NEW.user_id); END IF;
  RETURN NULL;
END $$;--> statement-breakpoint
CREATE FUNCTION loadout_notify_grant_user() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  PERFORM pg_notify('loadout_invalidate', 'user:' || g.user_id) FROM oauth_grants g WHERE g.id = OLD.grant_id;
  RETURN NULL;
END $$;--> statement-breakpoint
CREATE FUNCTION loadout_notify_members() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  PERFORM pg_notify('loadout_invalidate', 'user:' || m.user_id) FROM memberships m WHERE m.workspace_id = OLD.id;
  RETURN NULL;
END $$;--> statement-breakpoint
CREATE FUNCTION loadout_notify_workspace() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF TG_OP <> 'INSERT' THEN PERFORM pg_notify('loadout_invalidate', 'ws:' || OLD.workspace_id); END IF;
  IF TG_OP <> 'DELETE' THEN PERFORM pg_notify('loadout_invalidate', 'ws:' || NEW.workspace_id); END IF;
  RETURN NULL;
END $$;--> statement-breakpoint
-- Last-used times are hints written once a minute: they change no principal, so they notify nobody.
CREATE TRIGGER api_tokens_invalidate AFTER UPDATE OF user_id, workspace_id, secret_hash, scopes, expires_at, revoked_at OR DELETE ON api_tokens
  FOR EACH ROW EXECUTE FUNCTION loadout_notify_user();--> statement-breakpoint
CREATE TRIGGER memberships_invalidate AFTER INSERT OR UPDATE OR DELETE ON memberships
  FOR EACH ROW EXECUTE FUNCTION loadout_notify_user();--> statement-breakpoint
CREATE TRIGGER oauth_grants_invalidate AFTER UPDATE OF user_id, workspace_id, resource, scopes, project, mode, revoked_at OR DELETE ON oauth_grants
  FOR EACH ROW EXECUTE FUNCTION loadout_notify_user();--> statement-breakpoint
CREATE TRIGGER oauth_tokens_invalidate AFTER UPDATE OF grant_id, kind, secret_hash, expires_at, revoked_at OR DELETE ON oauth_tokens
  FOR EACH ROW EXECUTE FUNCTION loadout_notify_grant_user();--> statement-breakpoint
CREATE TRIGGER mcp_endpoints_invalidate AFTER INSERT OR UPDATE OR DELETE ON mcp_endpoints
  FOR EACH ROW EXECUTE FUNCTION loadout_notify_user();--> statement-breakpoint
CREATE TRIGGER workspaces_invalidate AFTER UPDATE OF slug, name, kind ON workspaces
  FOR EACH ROW EXECUTE FUNCTION loadout_notify_members();--> statement-breakpoint
CREATE TRIGGER skills_invalidate AFTER INSERT OR UPDATE OR DELETE ON skills
  FOR EACH ROW EXECUTE FUNCTION loadout_notify_workspace();--> statement-breakpoint
CREATE TRIGGER mcp_servers_invalidate AFTER INSERT OR UPDATE OR DELETE ON mcp_servers
  FOR EACH ROW EXECUTE FUNCTION loadout_notify_workspace();--> statement-breakpoint
CREATE TRIGGER mcp_server_tools_invalidate AFTER INSERT OR UPDATE OR DELETE ON mcp_server_tools
  FOR EACH ROW EXECUTE FUNCTION loadout_notify_workspace();
