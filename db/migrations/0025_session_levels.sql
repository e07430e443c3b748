-- A 2025 client session's logging/setLevel, kept for its calls on any instance (see db/src/schema/mcp-session-levels.ts).
CREATE TABLE "mcp_session_levels" (
	"session_key" text PRIMARY KEY NOT NULL,
	"user_id" text NOT NULL,
	"level" text NOT NULL,
	"set_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
ALTER TABLE "mcp_session_levels" ADD CONSTRAINT "mcp_session_levels_user_id_users_id_fk" FOREIGN KEY ("user_id") REFERENCES "public"."users"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "mcp_session_levels_user" ON "mcp_session_levels" USING btree ("user_id","set_at");