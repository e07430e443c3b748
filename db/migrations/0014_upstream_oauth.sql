CREATE TABLE "upstream_oauth_connections" (
	"id" text PRIMARY KEY NOT NULL,
	"workspace_id" text NOT NULL,
	"server_id" text NOT NULL,
	"owner" text NOT NULL,
	"user_id" text,
	"connected_by" text NOT NULL,
	"issuer" text NOT NULL,
	"registration_id" text,
	"client_id" text NOT NULL,
	"resource" text NOT NULL,
	"access_token" text NOT NULL,
	"refresh_token" text,
	"expires_at" timestamp with time zone,
	"scope" text,
	"status" text NOT NULL,
	"last_error" text,
	"step_up_scope" text,
	"version" integer DEFAULT 1 NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "upstream_oauth_registrations" (
	"id" text PRIMARY KEY NOT NULL,
	"issuer" text NOT NULL,
	"redirect_uri" text NOT NULL,
	"kind" text NOT NULL,
	"client_id" text NOT NULL,
	"client_secret" text,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "upstream_oauth_states" (
	"id" text PRIMARY KEY NOT NULL,
	"state_hash" text NOT NULL,
	"workspace_id" text NOT NULL,
	"server_id" text NOT NULL,
	"user_id" text NOT NULL,
	"shared" boolean NOT NULL,
	"generation" integer NOT NULL,
	"issuer" text NOT NULL,
	"registration_id" text,
	"client_id" text NOT NULL,
	"verifier" text NOT NULL,
	"redirect_uri" text NOT NULL,
	"resource" text NOT NULL,
	"scope" text,
	"expires_at" timestamp with time zone NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
ALTER TABLE "mcp_servers" ADD COLUMN "oauth" text;--> statement-breakpoint
ALTER TABLE "mcp_servers" ADD COLUMN "oauth_issuer" text;--> statement-breakpoint
ALTER TABLE "mcp_servers" ADD COLUMN "oauth_metadata" jsonb;--> statement-breakpoint
ALTER TABLE "mcp_servers" ADD COLUMN "oauth_scope" text;--> statement-breakpoint
ALTER TABLE "mcp_servers" ADD COLUMN "oauth_client_id" text;--> statement-breakpoint
ALTER TABLE "mcp_servers" ADD COLUMN "oauth_client_secret" text;--> statement-breakpoint
ALTER TABLE "upstream_oauth_connections" ADD CONSTRAINT "upstream_oauth_connections_workspace_id_workspaces_id_fk" FOREIGN KEY ("workspace_id") REFERENCES "public"."workspaces"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "upstream_oauth_connections" ADD CONSTRAINT "upstream_oauth_connections_server_id_mcp_servers_id_fk" FOREIGN KEY ("server_id") REFERENCES "public"."mcp_servers"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "upstream_oauth_connections" ADD CONSTRAINT "upstream_oauth_connections_user_id_users_id_fk" FOREIGN KEY ("user_id") REFERENCES "public"."users"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "upstream_oauth_states" ADD CONSTRAINT "upstream_oauth_states_workspace_id_workspaces_id_fk" FOREIGN KEY ("workspace_id") REFERENCES "public"."workspaces"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "upstream_oauth_states" ADD CONSTRAINT "upstream_oauth_states_server_id_mcp_servers_id_fk" FOREIGN KEY ("server_id") REFERENCES "public"."mcp_servers"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "upstream_oauth_states" ADD CONSTRAINT "upstream_oauth_states_user_id_users_id_fk" FOREIGN KEY ("user_id") REFERENCES "public"."users"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE UNIQUE INDEX "upstream_oauth_connections_owner_key" ON "upstream_oauth_connections" USING btree ("server_id","owner");--> statement-breakpoint
CREATE INDEX "upstream_oauth_connections_workspace_idx" ON "upstream_oauth_connections" USING btree ("workspace_id");--> statement-breakpoint
CREATE UNIQUE INDEX "upstream_oauth_registrations_issuer_key" ON "upstream_oauth_registrations" USING btree ("issuer","redirect_uri");--> statement-breakpoint
CREATE UNIQUE INDEX "upstream_oauth_states_hash_key" ON "upstream_oauth_states" USING btree ("state_hash");--> statement-breakpoint
CREATE INDEX "upstream_oauth_states_server_idx" ON "upstream_oauth_states" USING btree ("server_id");