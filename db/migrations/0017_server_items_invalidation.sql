-- A server's resources, templates and prompts decide what a session may list and read: each
-- instance drops its hot copies when they change (see 0010_invalidation.sql), whoever wrote.
CREATE TRIGGER mcp_server_items_invalidate AFTER INSERT OR UPDATE OR DELETE ON mcp_server_items
  FOR EACH ROW EXECUTE FUNCTION loadout_notify_workspace();
