CREATE TABLE "mcp_usage_daily" (
	"workspace_id" text NOT NULL,
	"day" date NOT NULL,
	"client" text NOT NULL,
	"tool" text NOT NULL,
	"outcome" text NOT NULL,
	"calls" integer NOT NULL,
	CONSTRAINT "mcp_usage_daily_workspace_id_day_client_tool_outcome_pk" PRIMARY KEY("workspace_id","day","client","tool","outcome")
);
--> statement-breakpoint
ALTER TABLE "mcp_usage_daily" ADD CONSTRAINT "mcp_usage_daily_workspace_id_workspaces_id_fk" FOREIGN KEY ("workspace_id") REFERENCES "public"."workspaces"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
-- Each statement that inserts audit events adds its MCP calls to the daily counts, once per
-- statement (a batch of calls is one grouped upsert). Keys are taken in order, so that two
-- instances' batches never wait on each other in a cycle. The same expressions as the usage
-- summary read before: the UTC day, data->>'client', the tool, data->>'outcome' (else 'error').
CREATE FUNCTION loadout_count_usage() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  INSERT INTO mcp_usage_daily (workspace_id, day, client, tool, outcome, calls)
  SELECT workspace_id, (created_at AT TIME ZONE 'UTC')::date, coalesce(data->>'client', ''), target_id,
         coalesce(data->>'outcome', 'error'), count(*)::int
  FROM added
  WHERE split_part(action, '.', 1) = 'mcp'
  GROUP BY 1, 2, 3, 4, 5
  ORDER BY 1, 2, 3, 4, 5
  ON CONFLICT (workspace_id, day, client, tool, outcome) DO UPDATE SET calls = mcp_usage_daily.calls + excluded.calls;
  RETURN NULL;
END $$;--> statement-breakpoint
CREATE TRIGGER audit_events_count_usage AFTER INSERT ON audit_events
  REFERENCING NEW TABLE AS added FOR EACH STATEMENT EXECUTE FUNCTION loadout_count_usage();--> statement-breakpoint
-- The calls logged before this migration.
INSERT INTO mcp_usage_daily (workspace_id, day, client, tool, outcome, calls)
SELECT workspace_id, (created_at AT TIME ZONE 'UTC')::date, coalesce(data->>'client', ''), target_id,
       coalesce(data->>'outcome', 'error'), count(*)::int
FROM audit_events
WHERE kind = 'mcp'
GROUP BY 1, 2, 3, 4, 5;
