-- A connection's tokens are what a proxied call to an OAuth server sends: each instance keeps
-- them in memory and drops them when they change (see 0010_invalidation.sql), whoever wrote.
CREATE TRIGGER upstream_oauth_connections_invalidate AFTER INSERT OR UPDATE OR DELETE ON upstream_oauth_connections
  FOR EACH ROW EXECUTE FUNCTION loadout_notify_workspace();
