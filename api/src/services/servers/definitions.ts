import { type Database, mcpServerTools } from "@loadout/db";
import { and, inArray } from "drizzle-orm";
import type { ServerToolRow } from "./upstreams";

/** A tool row without its input schema and annotations: what listings read from Postgres. */
export type LightToolRow = Omit<ServerToolRow, "inputSchema" | "annotations" | "outputSchema">;

export const lightToolColumns = {
  serverId: mcpServerTools.serverId,
  workspaceId: mcpServerTools.workspaceId,
  name: mcpServerTools.name,
  exposedName: mcpServerTools.exposedName,
  position: mcpServerTools.position,
  title: mcpServerTools.title,
  description: mcpServerTools.description,
  ui: mcpServerTools.ui,
  hash: mcpServerTools.hash,
  approvedHash: mcpServerTools.approvedHash,
  approvedDefinition: mcpServerTools.approvedDefinition,
  enabled: mcpServerTools.enabled,
  planSafeActions: mcpServerTools.planSafeActions,
  updatedAt: mcpServerTools.updatedAt,
};

interface Definition {
  updatedAt: number;
  inputSchema: Record<string, unknown>;
  annotations: Record<string, unknown>;
  outputSchema: Record<string, unknown> | null;
  /** Roughly what it holds in memory: its JSON length. */
  size: number;
}

/**
 * Input schemas and annotations of upstream tools, kept in memory by server, tool and the time the
 * row was last written: a listing of 16 servers × 64 tools then reads the small columns from
 * Postgres and not a megabyte of JSON. A row written since (a refresh on any instance) has a new
 * time and is read again, so the cache never serves a definition Postgres no longer holds.
 */
export class DefinitionCache {
  private readonly entries = new Map<string, Definition>();
  private bytes = 0;
  /** At most this many characters of JSON are kept; the least recently stored go first. */
  constructor(private readonly budget = 64 * 1024 * 1024) {}

  private key(row: Pick<LightToolRow, "serverId" | "name">) {
    return `${row.serverId}\u0000${row.name}`;
  }

  /** The rows completed with their definitions, reading from Postgres only those not cached. */
  async complete(db: Database, rows: LightToolRow[]): Promise<ServerToolRow[]> {
    const missing = rows.filter((r) => this.entries.get(this.key(r))?.updatedAt !== r.updatedAt.getTime());
    if (missing.length) {
      const fetched = await db
        .select({
          serverId: mcpServerTools.serverId,
          name: mcpServerTools.name,
          inputSchema: mcpServerTools.inputSchema,
          annotations: mcpServerTools.annotations,
          outputSchema: mcpServerTools.outputSchema,
          updatedAt: mcpServerTools.updatedAt,
        })
        .from(mcpServerTools)
        .where(
          and(
            inArray(mcpServerTools.serverId, [...new Set(missing.map((r) => r.serverId))]),
            inArray(mcpServerTools.name, [...new Set(missing.map((r) => r.name))]),
          ),
        );
      for (const f of fetched)
        this.set(this.key(f), {
          inputSchema: f.inputSchema,
          annotations: f.annotations,
          outputSchema: f.outputSchema,
          updatedAt: f.updatedAt.getTime(),
          size:
            JSON.stringify(f.inputSchema).length +
            JSON.stringify(f.annotations).length +
            JSON.stringify(f.outputSchema).length +
            64,
        });
    }
    return rows.flatMap((row) => {
      const definition = this.entries.get(this.key(row));
      // Rewritten between the two reads: left out of this answer, served by the next.
      if (!definition || definition.updatedAt !== row.updatedAt.getTime()) return [];
      return [
        {
          ...row,
          inputSchema: definition.inputSchema,
          annotations: definition.annotations,
          outputSchema: definition.outputSchema,
        },
      ];
    });
  }

  private set(key: string, value: Definition) {
    this.bytes -= this.entries.get(key)?.size ?? 0;
    this.entries.delete(key);
    this.entries.set(key, value);
    this.bytes += value.size;
    for (const [oldest, entry] of this.entries) {
      if (this.bytes <= this.budget || oldest === key) break;
      this.entries.delete(oldest);
      this.bytes -= entry.size;
    }
  }
}

/**
 * Listings of upstream tools by workspaces, project and mode, each valid for the catalog stamp it
 * was computed under (see catalogStamp). Bounded; the least recently used goes first.
 */
export class CatalogCache<T> {
  private readonly entries = new Map<string, { stamp: string; value: T }>();
  constructor(private readonly capacity = 10_000) {}

  get(key: string, stamp: string): T | undefined {
    const entry = this.entries.get(key);
    if (!entry || entry.stamp !== stamp) return undefined;
    this.entries.delete(key);
    this.entries.set(key, entry);
    return entry.value;
  }

  set(key: string, stamp: string, value: T) {
    this.entries.delete(key);
    this.entries.set(key, { stamp, value });
    if (this.entries.size > this.capacity) {
      const oldest = this.entries.keys().next().value;
      if (oldest !== undefined) this.entries.delete(oldest);
    }
  }
}
