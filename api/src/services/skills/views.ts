import type { Database } from "@loadout/db";
import { type ActivationScope, activationState } from "../../domain/activation";
import { parseSkillDocument } from "../../domain/skills/document";
import { docNameFor } from "../../domain/skills/names";
import type { SkillDetail, SkillSummary } from "../../schemas/skills";
import { type ManifestEntry, readBlob, type SkillRow, versionManifest } from "./lookup";

export function scopeOf(row: Pick<SkillRow, "scopeMode" | "scopeProjects">): ActivationScope {
  return { mode: row.scopeMode, projects: row.scopeProjects };
}

export function summaryOf(row: SkillRow): SkillSummary {
  const scope = scopeOf(row);
  return {
    id: row.id,
    kind: row.kind,
    name: row.name,
    description: row.description,
    enabled: row.enabled,
    scope,
    state: activationState(row.enabled, scope),
    revision: row.revision,
    version: row.version,
    fileCount: row.fileCount,
    totalBytes: row.totalBytes,
    createdAt: row.createdAt.toISOString(),
    updatedAt: row.updatedAt.toISOString(),
  };
}

export interface DocumentParts {
  document: string;
  frontmatter: string;
  metadata: Record<string, unknown>;
  body: string;
}

/** Splits a stored document for display; stored documents were valid when written. */
export function documentParts(kind: SkillRow["kind"], text: string): DocumentParts {
  const parsed = parseSkillDocument(text, { kind });
  if (!parsed.ok) return { document: text, frontmatter: "", metadata: {}, body: text };
  return {
    document: text,
    frontmatter: parsed.doc.frontmatterText,
    metadata: parsed.doc.frontmatter,
    body: parsed.doc.body,
  };
}

export async function loadDocument(db: Database, row: SkillRow, files: ManifestEntry[]): Promise<string> {
  const doc = files.find((f) => f.path === docNameFor(row.kind));
  if (!doc) return "";
  return new TextDecoder("utf-8", { ignoreBOM: true }).decode(await readBlob(db, row.workspaceId, doc.digest));
}

export async function detailOf(db: Database, row: SkillRow): Promise<SkillDetail> {
  const manifest = await versionManifest(db, row.workspaceId, row.id, row.version);
  const files = manifest?.files ?? [];
  const text = await loadDocument(db, row, files);
  return { ...summaryOf(row), ...documentParts(row.kind, text), files };
}
