import { newId, skills } from "@loadout/db";
import { GLOBAL_SCOPE, normalizeScope, parseScope } from "../../domain/activation";
import { renderSkillDocument } from "../../domain/skills/document";
import { docNameFor, type ItemKind } from "../../domain/skills/names";
import { AppError } from "../../errors";
import type { CreateSkillInput, SkillDetail } from "../../schemas/skills";
import { recordEvent } from "../audit";
import type { ActionContext } from "../context";
import { uniqueViolation } from "../db-errors";
import { resolveWorkspace } from "../workspaces/access";
import { lockWorkspace } from "../workspaces/lock";
import { fileBytes, type IncomingFile, type PreparedContent, prepareContent } from "./content";
import { findSkill } from "./lookup";
import { writeVersion } from "./store";
import { detailOf } from "./views";

/** Creates a skill or persona from fields: its document is written from the name, description and instructions. */
export async function createSkill({
  ctx,
  input,
  ws,
}: {
  ctx: ActionContext;
  ws: string;
  input: CreateSkillInput;
}): Promise<SkillDetail> {
  // Access first: a workspace the caller does not reach answers 404 whatever the body holds.
  const workspace = await resolveWorkspace(ctx.db, ctx.principal, ws);
  const kind = input.kind ?? "skill";
  const docName = docNameFor(kind);
  const files: IncomingFile[] = [];
  for (const f of input.files ?? []) {
    if (f.path === docName) {
      throw new AppError(
        "invalid_request",
        `files: ${docName} is written from name, description and instructions; leave it out of files.`,
        {
          details: [{ path: docName, message: "comes from name, description and instructions" }],
        },
      );
    }
    const bytes = fileBytes(f.path, f);
    files.push({ path: f.path, size: bytes.byteLength, bytes });
  }
  const doc = new TextEncoder().encode(
    renderSkillDocument({ name: input.name, description: input.description, body: input.instructions }),
  );
  files.push({ path: docName, size: doc.byteLength, bytes: doc });
  const prepared = await prepareContent(kind, input.name, files);
  return insertItem(ctx, workspace.id, prepared, { action: "create", enabled: input.enabled, scope: input.scope });
}

/** Stores a new item from checked content: the item row, version 1 and its files, and the audit event, in one transaction. */
export async function insertItem(
  ctx: ActionContext,
  workspaceId: string,
  prepared: PreparedContent,
  options: { action: "create" | "import"; enabled?: boolean | undefined; scope?: unknown },
): Promise<SkillDetail> {
  const scope = options.scope === undefined ? GLOBAL_SCOPE : parseScope(options.scope);
  if (!scope)
    throw new AppError("invalid_request", "scope is not valid: give { mode, projects }.", {
      details: [{ path: "scope", message: "not valid" }],
    });
  const normalized = normalizeScope(scope);
  const kind: ItemKind = prepared.kind;
  const name = prepared.doc.name;
  const id = newId("skill", ctx.now.getTime());
  try {
    await ctx.db.transaction(async (tx) => {
      await lockWorkspace(tx, workspaceId);
      await tx.insert(skills).values({
        id,
        workspaceId,
        kind,
        name,
        description: prepared.doc.description,
        enabled: options.enabled ?? true,
        scopeMode: normalized.mode,
        scopeProjects: normalized.projects,
        revision: 1,
        version: 1,
        fileCount: prepared.files.length,
        totalBytes: prepared.totalBytes,
        createdAt: ctx.now,
        updatedAt: ctx.now,
      });
      await writeVersion(tx, ctx, {
        workspaceId,
        skillId: id,
        version: 1,
        action: options.action,
        description: prepared.doc.description,
        files: prepared.files,
      });
      await recordEvent(tx, ctx, {
        workspaceId,
        action: options.action === "import" ? `${kind}.imported` : `${kind}.created`,
        targetType: kind,
        targetId: id,
        data: { name, version: 1, files: prepared.files.length, bytes: prepared.totalBytes },
      });
    });
  } catch (error) {
    if (uniqueViolation(error) === "skills_workspace_name_key" || uniqueViolation(error) === "") {
      throw new AppError("conflict", `"${name}" already exists in this workspace. Edit it, or choose another name.`, {
        details: [{ path: "name", message: "already taken" }],
      });
    }
    throw error;
  }
  return detailOf(ctx.db, await findSkill(ctx.db, workspaceId, name));
}
