import { type Database, skills } from "@loadout/db";
import { and, eq } from "drizzle-orm";
import { normalizeScope, parseScope } from "../../domain/activation";
import { replaceBody, replaceDescription } from "../../domain/skills/document";
import { docNameFor } from "../../domain/skills/names";
import { AppError } from "../../errors";
import type { SkillDetail, UpdateSkillInput } from "../../schemas/skills";
import { recordEvent } from "../audit";
import type { ActionContext } from "../context";
import { resolveWorkspace } from "../workspaces/access";
import { lockWorkspace } from "../workspaces/lock";
import { fileBytes, type IncomingFile, prepareContent } from "./content";
import { findSkill, readBlob, type SkillRow, versionManifest } from "./lookup";
import { writeVersion } from "./store";
import { detailOf, scopeOf } from "./views";

/** The revision check of every write: a stale write is refused, never merged or overwritten. */
export function assertRevision(row: SkillRow, revision: number): void {
  if (row.revision !== revision) {
    throw new AppError(
      "conflict",
      `"${row.name}" changed since you loaded it (you edited revision ${revision}; it is at ${row.revision}). Reload it and apply your change again.`,
      { details: [{ path: "revision", message: `current revision is ${row.revision}` }] },
    );
  }
}

/**
 * Edits an item: description or instructions (the rest of the frontmatter kept as written),
 * files added, replaced or removed, enabled, scope. A content change makes a new version and
 * keeps the replaced one; every change bumps the revision and is audited in the same transaction.
 */
export async function updateSkill({
  ctx,
  ws,
  name,
  input,
}: {
  ctx: ActionContext;
  ws: string;
  name: string;
  input: UpdateSkillInput;
}): Promise<SkillDetail> {
  const workspace = await resolveWorkspace(ctx.db, ctx.principal, ws);
  const scope = input.scope === undefined ? undefined : parseScope(input.scope);
  if (scope === null)
    throw new AppError("invalid_request", "scope is not valid: give { mode, projects }.", {
      details: [{ path: "scope", message: "not valid" }],
    });

  await ctx.db.transaction(async (tx) => {
    await lockWorkspace(tx, workspace.id);
    const row = await findSkill(tx, workspace.id, name, { forUpdate: true });
    assertRevision(row, input.revision);
    const contentChange =
      input.description !== undefined || input.instructions !== undefined || input.files !== undefined;
    let next = {
      version: row.version,
      description: row.description,
      fileCount: row.fileCount,
      totalBytes: row.totalBytes,
    };
    const events: Array<{ action: string; data: Record<string, unknown> }> = [];

    if (contentChange) {
      const changed = await newContent(tx, row, input);
      if (changed) {
        const version = row.version + 1;
        await writeVersion(tx, ctx, {
          workspaceId: workspace.id,
          skillId: row.id,
          version,
          action: "update",
          description: changed.doc.description,
          files: changed.files,
        });
        next = {
          version,
          description: changed.doc.description,
          fileCount: changed.files.length,
          totalBytes: changed.totalBytes,
        };
        events.push({ action: `${row.kind}.updated`, data: { name: row.name, version } });
      }
    }
    const enabled = input.enabled ?? row.enabled;
    if (enabled !== row.enabled)
      events.push({ action: `${row.kind}.${enabled ? "enabled" : "disabled"}`, data: { name: row.name } });
    const nextScope = scope ? normalizeScope(scope) : scopeOf(row);
    const before = scopeOf(row);
    if (nextScope.mode !== before.mode || nextScope.projects.join("\n") !== before.projects.join("\n")) {
      events.push({ action: `${row.kind}.scope_changed`, data: { name: row.name, from: before, to: nextScope } });
    }
    if (events.length === 0) return;

    await tx
      .update(skills)
      .set({
        ...next,
        enabled,
        scopeMode: nextScope.mode,
        scopeProjects: nextScope.projects,
        revision: row.revision + 1,
        updatedAt: ctx.now,
      })
      .where(and(eq(skills.id, row.id), eq(skills.workspaceId, workspace.id)));
    for (const event of events) {
      await recordEvent(tx, ctx, {
        workspaceId: workspace.id,
        action: event.action,
        targetType: row.kind,
        targetId: row.id,
        data: event.data,
      });
    }
  });
  return detailOf(ctx.db, await findSkill(ctx.db, workspace.id, name));
}

/** The checked next content, or null when the edit changes no byte. */
async function newContent(tx: Database, row: SkillRow, input: UpdateSkillInput) {
  const docName = docNameFor(row.kind);
  const manifest = await versionManifest(tx, row.workspaceId, row.id, row.version);
  if (!manifest) throw new Error(`item ${row.id} has no version ${row.version}`);
  const files = new Map<string, IncomingFile>(
    manifest.files.map((f) => [f.path, { path: f.path, size: f.size, digest: f.digest }]),
  );
  const current = manifest.files.find((f) => f.path === docName);
  if (!current) throw new Error(`item ${row.id} has no ${docName}`);

  const explicitDoc = input.files?.[docName];
  if (explicitDoc === null) {
    throw new AppError("invalid_request", `${docName} cannot be removed; remove the whole ${row.kind} instead.`, {
      details: [{ path: docName, message: "cannot be removed" }],
    });
  }
  if (explicitDoc && (input.description !== undefined || input.instructions !== undefined)) {
    throw new AppError(
      "invalid_request",
      `Give either a new ${docName} in files, or description/instructions, not both.`,
      {
        details: [{ path: docName, message: "conflicts with description/instructions" }],
      },
    );
  }
  for (const [path, change] of Object.entries(input.files ?? {})) {
    if (change === null) {
      if (!files.delete(path)) throw new AppError("not_found", `File "${path}" of "${row.name}" was not found.`);
      continue;
    }
    const bytes = fileBytes(path, change);
    files.set(path, { path, size: bytes.byteLength, bytes });
  }
  if (!explicitDoc) {
    // The document is always parsed (the checks need its name and description); an unchanged one
    // is not scanned again.
    const stored = await readBlob(tx, row.workspaceId, current.digest);
    if (input.description === undefined && input.instructions === undefined) {
      files.set(docName, {
        path: docName,
        size: stored.byteLength,
        bytes: stored,
        digest: current.digest,
        unchanged: true,
      });
    } else {
      let text = new TextDecoder("utf-8", { ignoreBOM: true }).decode(stored);
      if (input.description !== undefined) text = replaceDescription(text, input.description);
      if (input.instructions !== undefined) text = replaceBody(text, input.instructions);
      const bytes = new TextEncoder().encode(text);
      files.set(docName, { path: docName, size: bytes.byteLength, bytes });
    }
  }
  const prepared = await prepareContent(row.kind, row.name, [...files.values()]);
  const same =
    prepared.files.length === manifest.files.length &&
    prepared.files.every((f, i) => f.path === manifest.files[i]?.path && f.digest === manifest.files[i]?.digest);
  return same ? null : prepared;
}
