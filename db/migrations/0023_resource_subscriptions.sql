CREATE TABLE "mcp_resource_subscriptions" (
	"session_key" text NOT NULL,
	"user_id" text NOT NULL,
	"uri" text NOT NULL,
	"seen_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "mcp_resource_subscriptions_session_key_uri_pk" PRIMARY KEY("session_key","uri")
);
--> statement-breakpoint
ALTER TABLE "mcp_resource_subscriptions" ADD CONSTRAINT "mcp_resource_subscriptions_user_id_users_id_fk" FOREIGN KEY ("user_id") REFERENCES "public"."users"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "mcp_resource_subscriptions_user" ON "mcp_resource_subscriptions" USING btree ("user_id","seen_at");--> statement-breakpoint
-- A session's subscriptions changed: its GET stream's holder reads them again (listening instances
-- hear `sub:<session_key>`; a Worker's stream polls the counter through the ChangeFeed object).
CREATE FUNCTION loadout_notify_subscription() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF TG_OP = 'DELETE' THEN PERFORM loadout_touch('sub:' || OLD.session_key);
  ELSE PERFORM loadout_touch('sub:' || NEW.session_key);
  END IF;
  RETURN NULL;
END $$;--> statement-breakpoint
CREATE CONSTRAINT TRIGGER mcp_resource_subscriptions_invalidate AFTER INSERT OR DELETE ON mcp_resource_subscriptions
  DEFERRABLE INITIALLY DEFERRED FOR EACH ROW EXECUTE FUNCTION loadout_notify_subscription();
