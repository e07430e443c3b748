CREATE TABLE "mcp_server_items" (
	"server_id" text NOT NULL,
	"workspace_id" text NOT NULL,
	"kind" text NOT NULL,
	"key" text NOT NULL,
	"exposed_key" text NOT NULL,
	"position" integer NOT NULL,
	"definition" jsonb NOT NULL,
	"hash" text NOT NULL,
	"approved_hash" text,
	"approved_definition" jsonb,
	"enabled" boolean DEFAULT true NOT NULL,
	"plan_safe" boolean DEFAULT false NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "mcp_server_items_server_id_kind_key_pk" PRIMARY KEY("server_id","kind","key")
);
--> statement-breakpoint
ALTER TABLE "mcp_server_items" ADD CONSTRAINT "mcp_server_items_server_id_mcp_servers_id_fk" FOREIGN KEY ("server_id") REFERENCES "public"."mcp_servers"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "mcp_server_items" ADD CONSTRAINT "mcp_server_items_workspace_id_workspaces_id_fk" FOREIGN KEY ("workspace_id") REFERENCES "public"."workspaces"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE UNIQUE INDEX "mcp_server_items_workspace_exposed_key" ON "mcp_server_items" USING btree ("workspace_id","kind","exposed_key");