import { type Database, newId, skillBlobs, skillVersionFiles, skillVersions } from "@loadout/db";
import { and, eq, inArray, sql } from "drizzle-orm";
import { formatSize, WORKSPACE_QUOTA_BYTES } from "../../domain/skills/limits";
import { AppError } from "../../errors";
import type { ActionContext } from "../context";
import { lockWorkspace } from "../workspaces/lock";
import type { ContentFile } from "./content";

/** Bytes per INSERT of blobs: large enough to be few statements, small enough to stay cheap. */
const BLOB_BATCH_BYTES = 4 * 1024 * 1024;

/**
 * Writes one content version: the blobs it adds (after the workspace quota check, under a lock
 * on the workspace row so concurrent writers cannot both squeeze under it), then the version and
 * its manifest. Call inside the transaction of the write.
 */
export async function writeVersion(
  tx: Database,
  ctx: ActionContext,
  input: {
    workspaceId: string;
    skillId: string;
    version: number;
    action: "create" | "import" | "update" | "restore";
    restoredFrom?: number;
    description: string;
    files: ContentFile[];
  },
): Promise<void> {
  const withBytes = input.files.filter((f): f is ContentFile & { bytes: Uint8Array } => f.bytes !== undefined);
  if (withBytes.length > 0) {
    // The write's caller took this lock first; asking again (a no-op then) keeps the quota check
    // from ever running without it.
    await lockWorkspace(tx, input.workspaceId);
    const digests = [...new Set(withBytes.map((f) => f.digest))];
    const present = await tx
      .select({ digest: skillBlobs.digest })
      .from(skillBlobs)
      .where(and(eq(skillBlobs.workspaceId, input.workspaceId), inArray(skillBlobs.digest, digests)));
    const known = new Set(present.map((p) => p.digest));
    const added = new Map<string, ContentFile & { bytes: Uint8Array }>();
    for (const f of withBytes) if (!known.has(f.digest)) added.set(f.digest, f);
    const addedBytes = [...added.values()].reduce((n, f) => n + f.size, 0);
    if (addedBytes > 0) {
      const [usage] = await tx
        .select({ used: sql<number>`coalesce(sum(${skillBlobs.size}), 0)::bigint` })
        .from(skillBlobs)
        .where(eq(skillBlobs.workspaceId, input.workspaceId));
      const used = Number(usage?.used ?? 0);
      if (used + addedBytes > WORKSPACE_QUOTA_BYTES) {
        throw new AppError(
          "payload_too_large",
          `This workspace stores ${formatSize(used)} of its ${formatSize(WORKSPACE_QUOTA_BYTES)} quota; this change adds ${formatSize(addedBytes)}. Remove skills or large files you no longer need.`,
          { details: [{ path: "(workspace)", message: "quota exceeded" }] },
        );
      }
      let batch: (typeof skillBlobs.$inferInsert)[] = [];
      let batchBytes = 0;
      const flush = async () => {
        if (batch.length === 0) return;
        await tx.insert(skillBlobs).values(batch).onConflictDoNothing();
        batch = [];
        batchBytes = 0;
      };
      for (const f of added.values()) {
        batch.push({ workspaceId: input.workspaceId, digest: f.digest, size: f.size, content: f.bytes });
        batchBytes += f.size;
        if (batchBytes >= BLOB_BATCH_BYTES) await flush();
      }
      await flush();
    }
  }

  const versionId = newId("skillVersion", ctx.now.getTime());
  await tx.insert(skillVersions).values({
    id: versionId,
    skillId: input.skillId,
    workspaceId: input.workspaceId,
    version: input.version,
    action: input.action,
    restoredFrom: input.restoredFrom ?? null,
    description: input.description,
    fileCount: input.files.length,
    totalBytes: input.files.reduce((n, f) => n + f.size, 0),
    actorUserId: ctx.principal.userId,
    actorTokenId: ctx.principal.kind === "token" ? ctx.principal.tokenId : null,
    createdAt: ctx.now,
  });
  for (let i = 0; i < input.files.length; i += 500) {
    await tx
      .insert(skillVersionFiles)
      .values(
        input.files
          .slice(i, i + 500)
          .map((f) => ({ versionId, workspaceId: input.workspaceId, path: f.path, size: f.size, digest: f.digest })),
      );
  }
}

/** Drops blobs no version refers to any more (after a removal). */
export async function deleteOrphanBlobs(tx: Database, workspaceId: string): Promise<void> {
  await tx.execute(sql`
    delete from ${skillBlobs} b
    where b.workspace_id = ${workspaceId}
      and not exists (select 1 from ${skillVersionFiles} f where f.workspace_id = b.workspace_id and f.digest = b.digest)`);
}
