-- The triggers of 0010, 0015 and 0017 run at commit instead of after each row's statement. Since
-- 0018 they also bump a counter row in cache_stamps; taken mid-transaction, that row lock could
-- meet a writer that holds its workspace's lock and wants the counter, while this one holds the
-- counter and wants the workspace (a deadlock seen with concurrent imports on Postgres). At commit,
-- every other lock of the transaction is already held, so the counters come last. Notifications
-- were sent at commit anyway, so listening instances hear the same, in the same order.
DROP TRIGGER api_tokens_invalidate ON api_tokens;
--> statement-breakpoint
CREATE CONSTRAINT TRIGGER api_tokens_invalidate AFTER UPDATE OF user_id, workspace_id, secret_hash, scopes, expires_at, revoked_at OR DELETE ON api_tokens
  DEFERRABLE INITIALLY DEFERRED FOR EACH ROW EXECUTE FUNCTION loadout_notify_user();
--> statement-breakpoint
DROP TRIGGER memberships_invalidate ON memberships;
--> statement-breakpoint
CREATE CONSTRAINT TRIGGER memberships_invalidate AFTER INSERT OR UPDATE OR DELETE ON memberships
  DEFERRABLE INITIALLY DEFERRED FOR EACH ROW EXECUTE FUNCTION loadout_notify_user();
--> statement-breakpoint
DROP TRIGGER oauth_grants_invalidate ON oauth_grants;
--> statement-breakpoint
CREATE CONSTRAINT TRIGGER oauth_grants_invalidate AFTER UPDATE OF user_id, workspace_id, resource, scopes, project, mode, revoked_at OR DELETE ON oauth_grants
  DEFERRABLE INITIALLY DEFERRED FOR EACH ROW EXECUTE FUNCTION loadout_notify_user();
--> statement-breakpoint
DROP TRIGGER oauth_tokens_invalidate ON oauth_tokens;
--> statement-breakpoint
CREATE CONSTRAINT TRIGGER oauth_tokens_invalidate AFTER UPDATE OF grant_id, kind, secret_hash, expires_at, revoked_at OR DELETE ON oauth_tokens
  DEFERRABLE INITIALLY DEFERRED FOR EACH ROW EXECUTE FUNCTION loadout_notify_grant_user();
--> statement-breakpoint
DROP TRIGGER mcp_endpoints_invalidate ON mcp_endpoints;
--> statement-breakpoint
CREATE CONSTRAINT TRIGGER mcp_endpoints_invalidate AFTER INSERT OR UPDATE OR DELETE ON mcp_endpoints
  DEFERRABLE INITIALLY DEFERRED FOR EACH ROW EXECUTE FUNCTION loadout_notify_user();
--> statement-breakpoint
DROP TRIGGER workspaces_invalidate ON workspaces;
--> statement-breakpoint
CREATE CONSTRAINT TRIGGER workspaces_invalidate AFTER UPDATE OF slug, name, kind ON workspaces
  DEFERRABLE INITIALLY DEFERRED FOR EACH ROW EXECUTE FUNCTION loadout_notify_members();
--> statement-breakpoint
DROP TRIGGER skills_invalidate ON skills;
--> statement-breakpoint
CREATE CONSTRAINT TRIGGER skills_invalidate AFTER INSERT OR UPDATE OR DELETE ON skills
  DEFERRABLE INITIALLY DEFERRED FOR EACH ROW EXECUTE FUNCTION loadout_notify_workspace();
--> statement-breakpoint
DROP TRIGGER mcp_servers_invalidate ON mcp_servers;
--> statement-breakpoint
CREATE CONSTRAINT TRIGGER mcp_servers_invalidate AFTER INSERT OR UPDATE OR DELETE ON mcp_servers
  DEFERRABLE INITIALLY DEFERRED FOR EACH ROW EXECUTE FUNCTION loadout_notify_workspace();
--> statement-breakpoint
DROP TRIGGER mcp_server_tools_invalidate ON mcp_server_tools;
--> statement-breakpoint
CREATE CONSTRAINT TRIGGER mcp_server_tools_invalidate AFTER INSERT OR UPDATE OR DELETE ON mcp_server_tools
  DEFERRABLE INITIALLY DEFERRED FOR EACH ROW EXECUTE FUNCTION loadout_notify_workspace();
--> statement-breakpoint
DROP TRIGGER upstream_oauth_connections_invalidate ON upstream_oauth_connections;
--> statement-breakpoint
CREATE CONSTRAINT TRIGGER upstream_oauth_connections_invalidate AFTER INSERT OR UPDATE OR DELETE ON upstream_oauth_connections
  DEFERRABLE INITIALLY DEFERRED FOR EACH ROW EXECUTE FUNCTION loadout_notify_workspace();
--> statement-breakpoint
DROP TRIGGER mcp_server_items_invalidate ON mcp_server_items;
--> statement-breakpoint
CREATE CONSTRAINT TRIGGER mcp_server_items_invalidate AFTER INSERT OR UPDATE OR DELETE ON mcp_server_items
  DEFERRABLE INITIALLY DEFERRED FOR EACH ROW EXECUTE FUNCTION loadout_notify_workspace();
