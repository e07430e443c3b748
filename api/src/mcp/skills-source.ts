import type { Database } from "@loadout/db";
import { ProtocolError, type Resource } from "@modelcontextprotocol/server";
import type { Skill, SkillReadResult, SkillSource } from "@modelcontextprotocol/server/ext/skills";
import { isRowActive } from "../domain/activation";
import { decodeCursor, encodeCursor } from "../domain/cursor";
import { estimateTokens } from "../domain/instructions";
import { digestOf } from "../domain/skills/digest";
import { parseSkillDocument } from "../domain/skills/document";
import { activeItems, type CatalogItem, itemIn, type McpSession } from "../services/mcp/catalog";
import { readUpstreamSkillFile, sessionUpstreamSkills, type UpstreamSkill } from "../services/mcp/upstream-skills";
import type { ServerDeps } from "../services/servers/upstreams";
import { blobTexts, currentFiles } from "../services/skills/current-files";
import { readBlob, versionManifest } from "../services/skills/lookup";

/** Entries per skills/list page, and children per directory page. */
const PAGE = 100;
const SCHEME = "skill://";
const META = "dev.loadout";
/** Where upstream servers' skills are at /mcp (see exposedUri): `_` starts no skill name, so none of the user's own is here. */
const UPSTREAM = `${SCHEME}_servers/`;

/** What serving upstream servers' skills needs: the proxy's dependencies and the request's time. */
export interface UpstreamSkillAccess {
  deps: ServerDeps;
  now: Date;
}

interface Located {
  workspaceId: string;
  address: string;
  name: string;
  path: string;
}

/**
 * The Skills extension (SEP-2640) over the registry: every active skill of the session as an
 * entry with its verbatim frontmatter and a complete manifest (size and digest of the exact
 * stored bytes), its files readable as `skill://` resources. Scope is checked on every get and
 * read, as for the tools. With `upstream`, the session's upstream servers' approved skills too,
 * under `skill://_servers/<prefix>/…` with origin `server:<prefix>`, each file read from its
 * server when asked for and checked against the approved manifest (services/mcp/upstream-skills.ts).
 */
export function registrySkillSource(db: Database, session: McpSession, access?: UpstreamSkillAccess): SkillSource {
  // The SDK's server is built per request, so its time is this request's.
  const upstream = access ?? (session.servers ? { deps: session.servers, now: new Date() } : undefined);
  const teamSlugs = new Map(session.workspaces.filter((w) => w.kind === "team").map((w) => [w.slug, w]));
  const personal = session.workspaces.find((w) => w.kind === "personal");

  /** `skill://acme/review/references/a.md` → the team's `review`, file `references/a.md`; else a personal skill. */
  async function locate(uri: string): Promise<Located | null> {
    if (!uri.startsWith(SCHEME)) return null;
    const parts = uri
      .slice(SCHEME.length)
      .split("/")
      .map((p) => decodeURIComponent(p));
    const [first, second] = parts;
    if (!first) return null;
    const team = teamSlugs.get(first);
    if (team && second) {
      const row = await itemIn(db, session, team.id, second);
      if (row)
        return { workspaceId: team.id, address: `${first}/${second}`, name: second, path: parts.slice(2).join("/") };
    }
    if (!personal) return null;
    return { workspaceId: personal.id, address: first, name: first, path: parts.slice(1).join("/") };
  }

  /** The item if it is a skill active in this session now. */
  async function active(located: Located) {
    const row = await itemIn(db, session, located.workspaceId, located.name);
    if (row?.kind !== "skill") return null;
    return isRowActive(row, session.project) ? row : null;
  }

  async function entries(items: CatalogItem[]): Promise<Skill[]> {
    if (items.length === 0) return [];
    const byItem = await currentFiles(
      db,
      items.map((i) => i.id),
    );
    const text = await blobTexts(
      db,
      items.flatMap((i) =>
        (byItem.get(i.id) ?? [])
          .filter((f) => f.path === "SKILL.md")
          .map((f) => ({ workspaceId: i.workspaceId, digest: f.digest })),
      ),
    );
    return items.flatMap((item) => {
      const manifest = byItem.get(item.id) ?? [];
      const doc = manifest.find((f) => f.path === "SKILL.md");
      const body = doc ? text.get(`${item.workspaceId} ${doc.digest}`) : undefined;
      if (!doc || body === undefined) return [];
      return [
        entryOf(item.address, item.origin.kind === "team" ? `team:${item.origin.team}` : "personal", body, manifest),
      ];
    });
  }

  return {
    async list({ cursor }) {
      const own = (await activeItems(db, session)).filter((i) => i.kind === "skill");
      const theirs = upstream ? await sessionUpstreamSkills(db, upstream.deps, session) : [];
      const all: Listed[] = [
        ...own.map((item) => ({ address: item.address, stamp: String(item.version), item })),
        ...theirs.map((skill) => ({ address: skill.address, stamp: skill.item.row.hash, skill })),
      ].sort((a, b) => (a.address < b.address ? -1 : a.address > b.address ? 1 : 0));
      // A cursor carries a fingerprint of the listing it continues: pages of a registry that
      // changed in between would skip or repeat entries, so such a cursor is refused.
      const fingerprint = digestOf(
        new TextEncoder().encode(all.map((i) => `${i.address}@${i.stamp}`).join("\n")),
      ).slice(7, 23);
      let after: string | undefined;
      if (cursor) {
        const decoded = decodeCursor(cursor);
        if (typeof decoded?.a !== "string" || decoded.f !== fingerprint) {
          throw new ProtocolError(
            -32602,
            "This cursor belongs to a listing that has changed (or is not one this server gave out); list skills again from the start.",
          );
        }
        after = decoded.a;
      }
      const start = after === undefined ? all : all.filter((i) => i.address > (after as string));
      const page = start.slice(0, PAGE);
      const last = page[page.length - 1];
      const ownEntries = await entries(page.flatMap((i) => (i.item ? [i.item] : [])));
      const byUri = new Map(ownEntries.map((e) => [e.uri, e]));
      return {
        skills: page.flatMap((i) => {
          if (i.skill) return [upstreamEntry(i.skill)];
          const entry = byUri.get(`${SCHEME}${i.address}/SKILL.md`);
          return entry ? [entry] : [];
        }),
        ...(start.length > PAGE && last ? { nextCursor: encodeCursor({ a: last.address, f: fingerprint }) } : {}),
      };
    },

    async get(uri) {
      if (uri.startsWith(UPSTREAM)) {
        const skill = upstream && (await sessionUpstreamSkills(db, upstream.deps, session)).find((s) => s.uri === uri);
        return skill ? upstreamEntry(skill) : undefined;
      }
      const located = await locate(uri);
      if (located?.path !== "SKILL.md") return undefined;
      const row = await active(located);
      if (!row) return undefined;
      const manifest = await versionManifest(db, row.workspaceId, row.id, row.version, session.caches?.content);
      const doc = manifest?.files.find((f) => f.path === "SKILL.md");
      if (!manifest || !doc) return undefined;
      const body = new TextDecoder("utf-8", { ignoreBOM: true }).decode(
        await readBlob(db, row.workspaceId, doc.digest, session.caches?.content),
      );
      const origin = located.address.includes("/") ? `team:${located.address.split("/")[0]}` : "personal";
      return entryOf(located.address, origin, body, manifest.files);
    },

    async read(uri, ctx): Promise<SkillReadResult | undefined> {
      if (uri.startsWith(UPSTREAM)) {
        if (!upstream) return undefined;
        const read = await readUpstreamSkillFile(db, upstream.deps, session, uri, {
          now: upstream.now,
          signal: ctx.mcpReq.signal,
        });
        if (!read) return undefined;
        // Not the upstream's error: Loadout's finding, and the bytes are not passed on.
        if (!read.ok) throw new ProtocolError(-32602, read.reason);
        return contentOf(read.file.path, read.bytes);
      }
      const located = await locate(uri);
      if (!located?.path) return undefined;
      const row = await active(located);
      if (!row) return undefined;
      const manifest = await versionManifest(db, row.workspaceId, row.id, row.version, session.caches?.content);
      const file = manifest?.files.find((f) => f.path === located.path);
      if (!file) return undefined;
      return contentOf(file.path, await readBlob(db, row.workspaceId, file.digest, session.caches?.content));
    },

    async readDirectory(uri, { cursor }) {
      if (uri.startsWith(UPSTREAM)) {
        const skills = upstream ? await sessionUpstreamSkills(db, upstream.deps, session) : [];
        return upstreamDirectory(skills, uri.endsWith("/") ? uri.slice(0, -1) : uri, cursor);
      }
      const located = await locate(uri.endsWith("/") ? uri.slice(0, -1) : uri);
      if (!located) return undefined;
      const row = await active(located);
      if (!row) return undefined;
      const manifest = await versionManifest(db, row.workspaceId, row.id, row.version, session.caches?.content);
      if (!manifest) return undefined;
      const dir = located.path ? `${located.path}/` : "";
      if (dir && !manifest.files.some((f) => f.path.startsWith(dir))) return undefined;
      const children = new Map<string, Resource>();
      for (const f of manifest.files) {
        if (!f.path.startsWith(dir)) continue;
        const rest = f.path.slice(dir.length);
        const slash = rest.indexOf("/");
        const name = slash === -1 ? rest : rest.slice(0, slash);
        const childUri = `${SCHEME}${located.address}/${dir}${name}`;
        if (!children.has(name)) {
          children.set(
            name,
            slash === -1 ? { uri: childUri, name, size: f.size } : { uri: childUri, name, mimeType: "inode/directory" },
          );
        }
      }
      return directoryPage(children, cursor);
    },
  };
}

/** One entry of a listing: one of the user's own skills, or an upstream server's. */
type Listed = { address: string; stamp: string; item?: CatalogItem; skill?: UpstreamSkill };

/** A file's content as a read gives it: UTF-8 text for text files, else bytes. */
function contentOf(path: string, bytes: Uint8Array): SkillReadResult {
  const isText = /\.(md|markdown|txt|json|ya?ml|toml|csv|tsv|py|js|ts|tsx|sh|rb|go|rs|sql|html|css|xml)$/i.test(path);
  if (isText) {
    try {
      return {
        text: new TextDecoder("utf-8", { fatal: true, ignoreBOM: true }).decode(bytes),
        mimeType: /\.(md|markdown)$/i.test(path) ? "text/markdown" : "text/plain",
      };
    } catch {
      // Not UTF-8 after all: served as bytes below.
    }
  }
  return { bytes, mimeType: "application/octet-stream" };
}

function directoryPage(children: Map<string, Resource>, cursor: string | undefined) {
  const all = [...children.values()].sort((a, b) => (a.uri < b.uri ? -1 : 1));
  const after = cursor ? decodeCursor(cursor)?.u : undefined;
  const rest = typeof after === "string" ? all.filter((r) => r.uri > after) : all;
  const page = rest.slice(0, PAGE);
  const last = page[page.length - 1];
  return { resources: page, ...(rest.length > PAGE && last ? { nextCursor: encodeCursor({ u: last.uri }) } : {}) };
}

/** A directory of an upstream skill (its root or a folder in it), from the approved manifest alone. */
function upstreamDirectory(skills: UpstreamSkill[], dir: string, cursor: string | undefined) {
  const skill = skills.find((s) => {
    const root = s.uri.slice(0, -"/SKILL.md".length);
    return dir === root || dir.startsWith(`${root}/`);
  });
  if (!skill) return undefined;
  const children = new Map<string, Resource>();
  for (const f of skill.files) {
    if (!f.exposed.startsWith(`${dir}/`)) continue;
    const rest = f.exposed.slice(dir.length + 1);
    const slash = rest.indexOf("/");
    const name = slash === -1 ? rest : rest.slice(0, slash);
    const childUri = `${dir}/${name}`;
    if (!children.has(name))
      children.set(
        name,
        slash === -1 ? { uri: childUri, name, size: f.size } : { uri: childUri, name, mimeType: "inode/directory" },
      );
  }
  return children.size ? directoryPage(children, cursor) : undefined;
}

/**
 * An upstream skill's entry at /mcp: the frontmatter verbatim, the approved manifest under the
 * namespaced URIs, and its origin (`server:<prefix>`). Nothing is fetched: files are read lazily.
 */
function upstreamEntry(skill: UpstreamSkill): Skill {
  return {
    uri: skill.uri,
    frontmatter: skill.definition.frontmatter as Skill["frontmatter"],
    resources: skill.files.map((f) => ({ uri: f.exposed, digest: f.digest, size: f.size })),
    _meta: {
      [`${META}/origin`]: skill.origin,
      [`${META}/untrusted`]: true,
    },
  };
}

function entryOf(
  address: string,
  origin: string,
  body: string,
  files: { path: string; size: number; digest: string }[],
): Skill {
  const parsed = parseSkillDocument(body, { kind: "skill" });
  const frontmatter = parsed.ok ? parsed.doc.frontmatter : {};
  return {
    uri: `${SCHEME}${address}/SKILL.md`,
    frontmatter: frontmatter as Skill["frontmatter"],
    resources: files.map((f) => ({ uri: `${SCHEME}${address}/${f.path}`, digest: f.digest, size: f.size })),
    _meta: {
      [`${META}/origin`]: origin,
      [`${META}/estimatedTokens`]: estimateTokens(body),
      // Skill text is guidance written by people, never permission: hosts should treat it so.
      [`${META}/untrusted`]: true,
    },
  };
}
