CREATE TABLE "workspace_invites" (
	"id" text PRIMARY KEY NOT NULL,
	"workspace_id" text NOT NULL,
	"email" text NOT NULL,
	"role" text NOT NULL,
	"secret_hash" text NOT NULL,
	"invited_by" text NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"expires_at" timestamp with time zone NOT NULL,
	"settled_at" timestamp with time zone,
	"settlement" text,
	"settled_by" text
);
--> statement-breakpoint
ALTER TABLE "audit_events" ADD COLUMN "kind" text GENERATED ALWAYS AS (split_part(action, '.', 1)) STORED NOT NULL;--> statement-breakpoint
ALTER TABLE "audit_events" ADD COLUMN "item" text GENERATED ALWAYS AS (coalesce(data->>'item', data->>'name', data->>'slug', data->>'email', target_id)) STORED NOT NULL;--> statement-breakpoint
ALTER TABLE "workspace_invites" ADD CONSTRAINT "workspace_invites_workspace_id_workspaces_id_fk" FOREIGN KEY ("workspace_id") REFERENCES "public"."workspaces"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE UNIQUE INDEX "workspace_invites_secret_key" ON "workspace_invites" USING btree ("secret_hash");--> statement-breakpoint
CREATE INDEX "workspace_invites_workspace_idx" ON "workspace_invites" USING btree ("workspace_id","created_at");--> statement-breakpoint
CREATE INDEX "audit_events_workspace_actor_idx" ON "audit_events" USING btree ("workspace_id","actor_user_id","id");--> statement-breakpoint
CREATE INDEX "audit_events_workspace_kind_idx" ON "audit_events" USING btree ("workspace_id","kind","id");--> statement-breakpoint
CREATE INDEX "audit_events_workspace_item_idx" ON "audit_events" USING btree ("workspace_id","item","id");