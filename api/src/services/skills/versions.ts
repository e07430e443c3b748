import { skills, skillVersions, users } from "@loadout/db";
import { and, desc, eq } from "drizzle-orm";
import { notFound } from "../../errors";
import type { SkillDetail, VersionDetail, VersionSummary } from "../../schemas/skills";
import { recordEvent } from "../audit";
import type { ActionContext } from "../context";
import { resolveWorkspace } from "../workspaces/access";
import { lockWorkspace } from "../workspaces/lock";
import { findSkill, versionManifest } from "./lookup";
import { writeVersion } from "./store";
import { assertRevision } from "./update";
import { detailOf, documentParts, loadDocument } from "./views";

const versionColumns = {
  version: skillVersions.version,
  action: skillVersions.action,
  restoredFrom: skillVersions.restoredFrom,
  createdAt: skillVersions.createdAt,
  description: skillVersions.description,
  fileCount: skillVersions.fileCount,
  totalBytes: skillVersions.totalBytes,
  actorId: users.id,
  actorEmail: users.email,
};

interface VersionRow {
  version: number;
  action: string;
  restoredFrom: number | null;
  createdAt: Date;
  description: string;
  fileCount: number;
  totalBytes: number;
  actorId: string | null;
  actorEmail: string | null;
}

function summary(row: VersionRow): VersionSummary {
  return {
    version: row.version,
    action: row.action,
    restoredFrom: row.restoredFrom,
    createdAt: row.createdAt.toISOString(),
    actor: row.actorId && row.actorEmail ? { id: row.actorId, email: row.actorEmail } : null,
    description: row.description,
    fileCount: row.fileCount,
    totalBytes: row.totalBytes,
  };
}

export async function listVersions({
  ctx,
  ws,
  name,
}: {
  ctx: ActionContext;
  ws: string;
  name: string;
}): Promise<VersionSummary[]> {
  const workspace = await resolveWorkspace(ctx.db, ctx.principal, ws);
  const row = await findSkill(ctx.db, workspace.id, name);
  const rows = await ctx.db
    .select(versionColumns)
    .from(skillVersions)
    .leftJoin(users, eq(users.id, skillVersions.actorUserId))
    .where(and(eq(skillVersions.workspaceId, workspace.id), eq(skillVersions.skillId, row.id)))
    .orderBy(desc(skillVersions.version));
  return rows.map(summary);
}

export async function getVersion({
  ctx,
  ws,
  name,
  version,
}: {
  ctx: ActionContext;
  ws: string;
  name: string;
  version: number;
}): Promise<VersionDetail> {
  const workspace = await resolveWorkspace(ctx.db, ctx.principal, ws);
  const row = await findSkill(ctx.db, workspace.id, name);
  const [meta] = await ctx.db
    .select(versionColumns)
    .from(skillVersions)
    .leftJoin(users, eq(users.id, skillVersions.actorUserId))
    .where(
      and(
        eq(skillVersions.workspaceId, workspace.id),
        eq(skillVersions.skillId, row.id),
        eq(skillVersions.version, version),
      ),
    )
    .limit(1);
  const manifest = await versionManifest(ctx.db, workspace.id, row.id, version);
  if (!meta || !manifest) throw notFound(`Version ${version} of "${name}"`);
  const parts = documentParts(row.kind, await loadDocument(ctx.db, row, manifest.files));
  return {
    ...summary(meta),
    document: parts.document,
    frontmatter: parts.frontmatter,
    body: parts.body,
    files: manifest.files,
  };
}

/** Makes an earlier version current again, as a new version: history only grows. */
export async function restoreVersion({
  ctx,
  ws,
  name,
  version,
  revision,
}: {
  ctx: ActionContext;
  ws: string;
  name: string;
  version: number;
  revision: number;
}): Promise<SkillDetail> {
  const workspace = await resolveWorkspace(ctx.db, ctx.principal, ws);
  await ctx.db.transaction(async (tx) => {
    await lockWorkspace(tx, workspace.id);
    const row = await findSkill(tx, workspace.id, name, { forUpdate: true });
    const manifest = await versionManifest(tx, workspace.id, row.id, version);
    const [meta] = await tx
      .select({ description: skillVersions.description })
      .from(skillVersions)
      .where(
        and(
          eq(skillVersions.workspaceId, workspace.id),
          eq(skillVersions.skillId, row.id),
          eq(skillVersions.version, version),
        ),
      )
      .limit(1);
    if (!manifest || !meta) throw notFound(`Version ${version} of "${name}"`);
    assertRevision(row, revision);
    const next = row.version + 1;
    await writeVersion(tx, ctx, {
      workspaceId: workspace.id,
      skillId: row.id,
      version: next,
      action: "restore",
      restoredFrom: version,
      description: meta.description,
      files: manifest.files,
    });
    await tx
      .update(skills)
      .set({
        version: next,
        revision: row.revision + 1,
        description: meta.description,
        fileCount: manifest.files.length,
        totalBytes: manifest.files.reduce((n, f) => n + f.size, 0),
        updatedAt: ctx.now,
      })
      .where(and(eq(skills.id, row.id), eq(skills.workspaceId, workspace.id)));
    await recordEvent(tx, ctx, {
      workspaceId: workspace.id,
      action: `${row.kind}.restored`,
      targetType: row.kind,
      targetId: row.id,
      data: { name, from: version, version: next },
    });
  });
  return detailOf(ctx.db, await findSkill(ctx.db, workspace.id, name));
}
