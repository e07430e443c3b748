import { jsonb, pgTable, text, timestamp, uniqueIndex } from "drizzle-orm/pg-core";
import type { SkillKind } from "./skills";
import { workspaces } from "./workspaces";

/** A client on a device that reads some kinds of item from the folders `loadout sync` wrote. */
export interface DeviceSyncReader {
  /** The CLI's name for the client: claude-code, codex, cursor or opencode. */
  client: string;
  kinds: SkillKind[];
}

/**
 * The last `loadout sync` of each of a user's devices (the random id the CLI keeps in its config
 * folder): which clients there read which kinds of item, and when. The MCP handshake leaves a kind
 * out of its instructions for a client that reads it from those folders (domain/fitting.ts).
 */
export const deviceSyncs = pgTable(
  "device_syncs",
  {
    id: text("id").primaryKey(),
    /** The user's personal workspace. */
    workspaceId: text("workspace_id")
      .notNull()
      .references(() => workspaces.id, { onDelete: "cascade" }),
    userId: text("user_id").notNull(),
    deviceId: text("device_id").notNull(),
    /** The device's host name, as the CLI reported it (for the Connect page). */
    deviceName: text("device_name").notNull(),
    project: text("project"),
    readers: jsonb("readers").$type<DeviceSyncReader[]>().notNull(),
    /** Items written into the folders by that sync, per kind. */
    written: jsonb("written").$type<{ skill: number; persona: number }>().notNull(),
    syncedAt: timestamp("synced_at", { withTimezone: true }).notNull(),
  },
  (t) => [uniqueIndex("device_syncs_user_device_key").on(t.userId, t.deviceId)],
);
