CREATE TABLE "mcp_server_tools" (
	"server_id" text NOT NULL,
	"workspace_id" text NOT NULL,
	"name" text NOT NULL,
	"exposed_name" text NOT NULL,
	"position" integer NOT NULL,
	"title" text,
	"description" text DEFAULT '' NOT NULL,
	"input_schema" jsonb NOT NULL,
	"annotations" jsonb DEFAULT '{}'::jsonb NOT NULL,
	"hash" text NOT NULL,
	"approved_hash" text,
	"approved_definition" jsonb,
	"enabled" boolean DEFAULT true NOT NULL,
	"plan_safe_actions" text[] DEFAULT '{}' NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "mcp_server_tools_server_id_name_pk" PRIMARY KEY("server_id","name")
);
--> statement-breakpoint
ALTER TABLE "mcp_servers" ADD COLUMN "tools_fetched_at" timestamp with time zone;--> statement-breakpoint
ALTER TABLE "mcp_servers" ADD COLUMN "tools_truncated" boolean DEFAULT false NOT NULL;--> statement-breakpoint
ALTER TABLE "mcp_servers" ADD COLUMN "generation" integer DEFAULT 1 NOT NULL;--> statement-breakpoint
ALTER TABLE "mcp_server_tools" ADD CONSTRAINT "mcp_server_tools_server_id_mcp_servers_id_fk" FOREIGN KEY ("server_id") REFERENCES "public"."mcp_servers"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "mcp_server_tools" ADD CONSTRAINT "mcp_server_tools_workspace_id_workspaces_id_fk" FOREIGN KEY ("workspace_id") REFERENCES "public"."workspaces"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE UNIQUE INDEX "mcp_server_tools_workspace_exposed_key" ON "mcp_server_tools" USING btree ("workspace_id","exposed_name");