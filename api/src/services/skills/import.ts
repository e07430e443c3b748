import { readSkillArchive } from "../../domain/skills/archive";
import { FILE_MAX_BYTES, SKILL_MAX_BYTES, SKILL_MAX_FILES } from "../../domain/skills/limits";
import { docNameFor, type ItemKind } from "../../domain/skills/names";
import { AppError } from "../../errors";
import type { ImportSkillInput, SkillDetail } from "../../schemas/skills";
import type { ActionContext } from "../context";
import { resolveWorkspace } from "../workspaces/access";
import { prepareContent } from "./content";
import { insertItem } from "./create";

/** Imports a pasted SKILL.md / PERSONA.md; the item's name is the frontmatter's. */
export async function importDocument({
  ctx,
  ws,
  input,
}: {
  ctx: ActionContext;
  ws: string;
  input: ImportSkillInput;
}): Promise<SkillDetail> {
  const workspace = await resolveWorkspace(ctx.db, ctx.principal, ws);
  const kind = input.kind ?? "skill";
  const bytes = new TextEncoder().encode(input.text);
  const prepared = await prepareContent(kind, null, [{ path: docNameFor(kind), size: bytes.byteLength, bytes }]);
  return insertItem(ctx, workspace.id, prepared, { action: "import", enabled: input.enabled, scope: input.scope });
}

/** Imports a `.zip`/`.skill` archive of a skill folder. */
export async function importArchive({
  ctx,
  ws,
  kind,
  archive,
}: {
  ctx: ActionContext;
  ws: string;
  kind: ItemKind;
  archive: Uint8Array;
}): Promise<SkillDetail> {
  const workspace = await resolveWorkspace(ctx.db, ctx.principal, ws);
  const docName = docNameFor(kind);
  const result = await readSkillArchive(archive, docName, {
    maxFiles: SKILL_MAX_FILES,
    maxTotalBytes: SKILL_MAX_BYTES,
    maxFileBytes: FILE_MAX_BYTES,
  });
  if (!result.ok) {
    const listed = result.problems.map((p) => `${p.path}: ${p.message}`).join("; ");
    throw new AppError(
      result.status === "too_large" ? "payload_too_large" : "invalid_request",
      `The archive was refused: ${listed}`,
      {
        details: result.problems,
      },
    );
  }
  const files = [...result.files].map(([path, bytes]) => ({ path, size: bytes.byteLength, bytes }));
  // A skill zipped in its folder is named by the folder, as on disk: a frontmatter name that
  // differs is refused like the JSON route's name mismatch, naming both.
  const prepared = await prepareContent(kind, result.folder, files);
  return insertItem(ctx, workspace.id, prepared, { action: "import" });
}
