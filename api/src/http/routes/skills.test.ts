import { auditEvents, skillBlobs, skills, skillVersionFiles, skillVersions } from "@loadout/db";
import { sha256 } from "@noble/hashes/sha2.js";
import { bytesToHex } from "@noble/hashes/utils.js";
import { BlobWriter, TextReader, Uint8ArrayReader, ZipWriter } from "@zip.js/zip.js";
import { count, eq } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { bearer, createTestApp, type TestApp, TestUser } from "../../testing";

let t: TestApp;
let ada: TestUser;
let token: string;
const base = "/v1/workspaces/me/skills";

beforeAll(async () => {
  t = await createTestApp();
  ada = await TestUser.signUp(t.app, "ada@example.com");
  token = (await ada.createToken({ name: "skills", scopes: ["skills:read", "skills:write"] })).secret;
});
afterAll(() => t.close());

const digest = (bytes: Uint8Array) => `sha256:${bytesToHex(sha256(bytes))}`;
const enc = (s: string) => new TextEncoder().encode(s);
const api = (path: string, init: { method?: string; body?: unknown } = {}) => t.app.request(path, bearer(token, init));

async function snapshot() {
  const db = t.database.db;
  const n = async (
    table: typeof skills | typeof skillVersions | typeof skillVersionFiles | typeof skillBlobs | typeof auditEvents,
  ) => (await db.select({ n: count() }).from(table))[0]?.n ?? 0;
  return {
    skills: await n(skills),
    versions: await n(skillVersions),
    files: await n(skillVersionFiles),
    blobs: await n(skillBlobs),
    events: await n(auditEvents),
  };
}

/** Asserts the refusal and that nothing at all was written. */
async function expectRefused(request: () => Response | Promise<Response>, status: number, code: string) {
  const before = await snapshot();
  const res = await request();
  const body = await res.json();
  expect(res.status, JSON.stringify(body)).toBe(status);
  expect(body.error.code).toBe(code);
  expect(await snapshot()).toEqual(before);
  return body.error as { message: string; details?: { path: string; message: string; line?: number }[] };
}

async function zip(entries: { name: string; text?: string; bytes?: Uint8Array; options?: Record<string, unknown> }[]) {
  const writer = new ZipWriter(new BlobWriter("application/zip"));
  for (const e of entries)
    await writer.add(e.name, e.bytes ? new Uint8ArrayReader(e.bytes) : new TextReader(e.text ?? ""), e.options);
  return new Uint8Array(await (await writer.close()).arrayBuffer());
}

const importZip = (bytes: Uint8Array, kind = "skill") =>
  t.app.request(`${base}/import?kind=${kind}`, {
    method: "POST",
    headers: { authorization: `Bearer ${token}`, "content-type": "application/zip" },
    body: bytes as Uint8Array<ArrayBuffer>,
  });

describe("create, read, list", () => {
  it("creates from fields, with files, and stores digests of the exact bytes", async () => {
    const png = Uint8Array.from({ length: 256 }, (_, i) => i);
    const res = await api(base, {
      method: "POST",
      body: {
        name: "code-review",
        description: "Reviews diffs for bugs and style; use when asked to review code.",
        instructions: "# Code review\n\nRead the diff carefully.\n",
        files: [
          { path: "references/checklist.md", content: "- [ ] tests\n" },
          { path: "assets/logo.png", contentBase64: Buffer.from(png).toString("base64") },
        ],
      },
    });
    expect(res.status).toBe(201);
    const detail = await res.json();
    expect(detail).toMatchObject({
      kind: "skill",
      name: "code-review",
      enabled: true,
      state: "global",
      revision: 1,
      version: 1,
      fileCount: 3,
    });
    expect(detail.scope).toEqual({ mode: "global", projects: [] });
    expect(detail.frontmatter).toContain("name: code-review");
    expect(detail.body).toContain("Read the diff carefully.");
    expect(detail.files.map((f: { path: string }) => f.path)).toEqual([
      "SKILL.md",
      "assets/logo.png",
      "references/checklist.md",
    ]);
    const logo = detail.files.find((f: { path: string }) => f.path === "assets/logo.png");
    expect(logo).toEqual({ path: "assets/logo.png", size: 256, digest: digest(png) });
    const skillMd = detail.files.find((f: { path: string }) => f.path === "SKILL.md");
    expect(skillMd.digest).toBe(digest(enc(detail.document)));

    const file = await api(`${base}/code-review/file?path=assets/logo.png`);
    expect(file.status).toBe(200);
    expect(new Uint8Array(await file.arrayBuffer())).toEqual(png);
    expect(file.headers.get("content-disposition")).toContain("attachment");
    expect(file.headers.get("etag")).toBe(`"${digest(png)}"`);
    const [event] = await t.database.db.select().from(auditEvents).where(eq(auditEvents.targetId, detail.id));
    expect(event?.action).toBe("skill.created");
  });

  it("imports a pasted document as written, and personas alike", async () => {
    const text =
      "---\r\n# a comment\r\nname: release-notes\r\ndescription: 'Writes release notes: from merged PRs'\r\nmodel: sonnet\r\nmetadata:\r\n  version: \"2\"\r\n---\r\n\r\nBody with café ☕\r\n";
    const res = await api(`${base}/import`, { method: "POST", body: { text } });
    expect(res.status).toBe(201);
    const detail = await res.json();
    expect(detail.document).toBe(text);
    expect(detail.metadata).toMatchObject({ name: "release-notes", model: "sonnet", metadata: { version: "2" } });
    const persona = await api(`${base}/import`, {
      method: "POST",
      body: {
        kind: "persona",
        text: "---\nname: staff-reviewer\ndescription: A staff engineer who reviews designs.\n---\nYou are…\n",
      },
    });
    expect(persona.status).toBe(201);
    expect((await persona.json()).files.map((f: { path: string }) => f.path)).toEqual(["PERSONA.md"]);
  });

  it("lists by name with filters and cursors", async () => {
    for (const name of ["alpha-one", "alpha-two", "alpha-three"]) {
      const res = await api(base, {
        method: "POST",
        body: { name, description: `The ${name} skill.`, instructions: "x" },
      });
      expect(res.status).toBe(201);
    }
    const page1 = await (await api(`${base}?q=alpha&limit=2`)).json();
    expect(page1.items.map((i: { name: string }) => i.name)).toEqual(["alpha-one", "alpha-three"]);
    const page2 = await (await api(`${base}?q=alpha&limit=2&cursor=${page1.nextCursor}`)).json();
    expect(page2.items.map((i: { name: string }) => i.name)).toEqual(["alpha-two"]);
    expect(page2.nextCursor).toBeNull();
    const personas = await (await api(`${base}?kind=persona`)).json();
    expect(personas.items.map((i: { name: string }) => i.name)).toEqual(["staff-reviewer"]);
    const bad = await api(`${base}?cursor=garbage!`);
    expect(bad.status).toBe(400);
  });
});

describe("activation", () => {
  it("keeps enabled and scope apart: narrow, switch off, switch on, projects kept", async () => {
    const get = async () => (await api(`${base}/alpha-one`)).json();
    let s = await get();
    const narrowed = await api(`${base}/alpha-one`, {
      method: "PATCH",
      body: { revision: s.revision, scope: { mode: "projects", projects: ["C:\\Work\\Mono\\", "/home/ada/app/"] } },
    });
    expect(narrowed.status).toBe(200);
    s = await narrowed.json();
    expect(s.scope).toEqual({ mode: "projects", projects: expect.arrayContaining(["c:/work/mono", "/home/ada/app"]) });
    expect(s.state).toBe("projects");
    expect(s.version).toBe(1);
    s = await (
      await api(`${base}/alpha-one`, { method: "PATCH", body: { revision: s.revision, enabled: false } })
    ).json();
    expect(s.state).toBe("off");
    s = await (
      await api(`${base}/alpha-one`, { method: "PATCH", body: { revision: s.revision, enabled: true } })
    ).json();
    expect(s.state).toBe("projects");
    expect(s.scope.projects).toHaveLength(2);
    expect(s.revision).toBe(4);

    const inMono = await (await api(`${base}?project=${encodeURIComponent("c:/work/mono/pkg")}`)).json();
    expect(inMono.items.map((i: { name: string }) => i.name)).toContain("alpha-one");
    const elsewhere = await (await api(`${base}?project=${encodeURIComponent("c:/work/monorepo")}`)).json();
    expect(elsewhere.items.map((i: { name: string }) => i.name)).not.toContain("alpha-one");
    expect(elsewhere.items.map((i: { name: string }) => i.name)).toContain("alpha-two");
    const states = await (await api(`${base}?state=projects`)).json();
    expect(states.items.map((i: { name: string }) => i.name)).toEqual(["alpha-one"]);
  });

  it("refuses a stale revision with 409 and changes nothing", async () => {
    const s = await (await api(`${base}/alpha-two`)).json();
    await api(`${base}/alpha-two`, { method: "PATCH", body: { revision: s.revision, description: "Changed once." } });
    const error = await expectRefused(
      () =>
        api(`${base}/alpha-two`, { method: "PATCH", body: { revision: s.revision, description: "Changed twice." } }),
      409,
      "conflict",
    );
    expect(error.details?.[0]?.message).toMatch(/current revision is 2/);
    expect((await (await api(`${base}/alpha-two`)).json()).description).toBe("Changed once.");
  });

  it("manages known projects", async () => {
    const added = await api("/v1/workspaces/me/projects", { method: "POST", body: { path: "C:\\Users\\Ada\\Code\\" } });
    expect(added.status).toBe(201);
    const again = await api("/v1/workspaces/me/projects", { method: "POST", body: { path: "c:/users/ada/code" } });
    expect(again.status).toBe(200);
    const list = await (await api("/v1/workspaces/me/projects")).json();
    expect(list.projects.map((p: { path: string }) => p.path)).toEqual(["c:/users/ada/code"]);
    expect((await api(`/v1/workspaces/me/projects/${list.projects[0].id}`, { method: "DELETE" })).status).toBe(204);
  });
});

describe("edits and history", () => {
  it("edits the description keeping the rest of the frontmatter as written", async () => {
    const before = await (await api(`${base}/release-notes`)).json();
    const res = await api(`${base}/release-notes`, {
      method: "PATCH",
      body: { revision: before.revision, description: "Drafts release notes." },
    });
    expect(res.status).toBe(200);
    const after = await res.json();
    expect(after.version).toBe(2);
    expect(after.document).toBe(
      before.document.replace(
        "'Writes release notes: from merged PRs'",
        after.document.match(/description: (.*)\r\n/)?.[1] ?? "?",
      ),
    );
    expect(after.document).toContain("# a comment\r\n");
    expect(after.document).toContain("model: sonnet\r\n");
    expect(after.description).toBe("Drafts release notes.");
  });

  it("keeps a BOM and CRLF line endings through an edit", async () => {
    const text = "\uFEFF---\r\nname: bom-skill\r\ndescription: Has a BOM.\r\n---\r\nBody\r\n";
    const created = await (await api(`${base}/import`, { method: "POST", body: { text } })).json();
    const edited = await (
      await api(`${base}/bom-skill`, {
        method: "PATCH",
        body: { revision: created.revision, description: "Still has a BOM." },
      })
    ).json();
    const bytes = new Uint8Array(await (await api(`${base}/bom-skill/file?path=SKILL.md`)).arrayBuffer());
    expect([...bytes.slice(0, 3)]).toEqual([0xef, 0xbb, 0xbf]);
    expect(new TextDecoder("utf-8", { ignoreBOM: true }).decode(bytes)).toBe(
      text.replace("Has a BOM.", "Still has a BOM."),
    );
    expect(edited.files.find((f: { path: string }) => f.path === "SKILL.md").digest).toBe(digest(bytes));
  });

  it("adds, replaces and removes files; keeps every version; restores one as a new version", async () => {
    let s = await (await api(`${base}/code-review`)).json();
    s = await (
      await api(`${base}/code-review`, {
        method: "PATCH",
        body: {
          revision: s.revision,
          instructions: "# Review v2\n",
          files: {
            "references/checklist.md": { content: "- [ ] docs\n" },
            "assets/logo.png": null,
            "scripts/lint.sh": { content: "#!/bin/sh\n" },
          },
        },
      })
    ).json();
    expect(s.version).toBe(2);
    expect(s.files.map((f: { path: string }) => f.path)).toEqual([
      "SKILL.md",
      "references/checklist.md",
      "scripts/lint.sh",
    ]);
    expect(s.body).toBe("# Review v2\n");

    const history = await (await api(`${base}/code-review/versions`)).json();
    expect(history.versions.map((v: { version: number; action: string }) => `${v.version}:${v.action}`)).toEqual([
      "2:update",
      "1:create",
    ]);
    expect(history.versions[0].actor.email).toBe("ada@example.com");
    const v1 = await (await api(`${base}/code-review/versions/1`)).json();
    expect(v1.body).toContain("Read the diff carefully.");
    const oldLogo = await api(`${base}/code-review/versions/1/file?path=assets/logo.png`);
    expect(new Uint8Array(await oldLogo.arrayBuffer())).toHaveLength(256);

    const restored = await api(`${base}/code-review/versions/1/restore`, {
      method: "POST",
      body: { revision: s.revision },
    });
    expect(restored.status).toBe(200);
    const r = await restored.json();
    expect(r.version).toBe(3);
    expect(r.body).toContain("Read the diff carefully.");
    expect(r.files.map((f: { path: string }) => f.path)).toEqual([
      "SKILL.md",
      "assets/logo.png",
      "references/checklist.md",
    ]);
    expect(r.files).toEqual(v1.files);
    const after = await (await api(`${base}/code-review/versions`)).json();
    expect(after.versions[0]).toMatchObject({ version: 3, action: "restore", restoredFrom: 1 });
  });

  it("an edit that changes nothing makes no version", async () => {
    const s = await (await api(`${base}/alpha-three`)).json();
    const res = await (
      await api(`${base}/alpha-three`, { method: "PATCH", body: { revision: s.revision, instructions: s.body } })
    ).json();
    expect(res.version).toBe(1);
    expect(res.revision).toBe(s.revision);
  });
});

describe("refusals store nothing", () => {
  const doc = (frontmatter: string, body = "Body\n") => `---\n${frontmatter}\n---\n${body}`;

  it.each([
    ["malformed YAML", doc("name: broken\ndescription: [unclosed"), "SKILL.md"],
    ["an alias", doc("name: aliased\ndescription: &d text\nlicense: *d"), "SKILL.md"],
    ["a duplicate key", doc("name: dupe\ndescription: a\ndescription: b"), "SKILL.md"],
    ["a list at the top", "---\n- name: x\n---\nbody", "SKILL.md"],
    ["no frontmatter", "# Just markdown", "SKILL.md"],
    ["a bad name", doc("name: Bad_Name\ndescription: x"), "SKILL.md"],
    ["an empty description", doc("name: empty-desc\ndescription: ''"), "SKILL.md"],
  ])("refuses %s with 400", async (_, text, path) => {
    const error = await expectRefused(
      () => api(`${base}/import`, { method: "POST", body: { text } }),
      400,
      "invalid_request",
    );
    expect(error.details?.[0]?.path).toBe(path);
  });

  it("refuses a credential, naming the file and the line, without echoing it", async () => {
    const secret = `gh${"p_"}${"A1b2C3d4E5f6G7h8I9j0K1l2M3n4O5p6Q7r8"}`;
    const error = await expectRefused(
      () =>
        api(base, {
          method: "POST",
          body: {
            name: "leaky",
            description: "Leaks.",
            instructions: "x",
            files: [{ path: "references/setup.md", content: `# Setup\n\nexport TOKEN=${secret}\n` }],
          },
        }),
      400,
      "invalid_request",
    );
    expect(error.details?.[0]).toMatchObject({ path: "references/setup.md", line: 3 });
    expect(error.details?.[0]?.message).toMatch(/GitHub/i);
    expect(JSON.stringify(error)).not.toContain(secret);
    expect(JSON.stringify(t.logs)).not.toContain(secret);
  });

  it.each([
    ["../escape.md", "SKILL"],
    ["/etc/passwd", "SKILL"],
    ["a\\b.md", "SKILL"],
  ])("refuses the path %s", async (path) => {
    await expectRefused(
      () =>
        api(base, {
          method: "POST",
          body: { name: "paths", description: "x", instructions: "x", files: [{ path, content: "x" }] },
        }),
      400,
      "invalid_request",
    );
  });

  it("refuses two paths differing only in case", async () => {
    await expectRefused(
      () =>
        api(base, {
          method: "POST",
          body: {
            name: "cases",
            description: "x",
            instructions: "x",
            files: [
              { path: "Notes.md", content: "a" },
              { path: "notes.md", content: "b" },
            ],
          },
        }),
      400,
      "invalid_request",
    );
  });

  it("refuses a SKILL.md over 128 KiB and a taken name", async () => {
    await expectRefused(
      () =>
        api(base, { method: "POST", body: { name: "huge", description: "x", instructions: "x".repeat(129 * 1024) } }),
      413,
      "payload_too_large",
    );
    await expectRefused(
      () => api(base, { method: "POST", body: { name: "alpha-one", description: "x", instructions: "x" } }),
      409,
      "conflict",
    );
  });

  it("refuses a PATCH whose SKILL.md names another item", async () => {
    const s = await (await api(`${base}/alpha-three`)).json();
    await expectRefused(
      () =>
        api(`${base}/alpha-three`, {
          method: "PATCH",
          body: { revision: s.revision, files: { "SKILL.md": { content: "---\nname: other\ndescription: x\n---\n" } } },
        }),
      400,
      "invalid_request",
    );
  });

  it("refuses archives with symlinks or bombs, and reads good ones", async () => {
    const good = await importZip(
      await zip([
        { name: "zipped/SKILL.md", text: "---\nname: zipped\ndescription: From an archive.\n---\nHi\n" },
        { name: "zipped/references/a.md", text: "A" },
      ]),
    );
    expect(good.status).toBe(201);
    expect((await good.json()).files.map((f: { path: string }) => f.path)).toEqual(["SKILL.md", "references/a.md"]);
    const doc = "---\nname: bad-zip\ndescription: x\n---\n";
    await expectRefused(
      async () =>
        importZip(
          await zip([
            { name: "SKILL.md", text: doc },
            { name: "link", text: "/etc/passwd", options: { unixMode: 0o120777 } },
          ]),
        ),
      400,
      "invalid_request",
    );
    await expectRefused(
      async () =>
        importZip(
          await zip([
            { name: "SKILL.md", text: doc },
            { name: "zeros.bin", bytes: new Uint8Array(17 * 1024 * 1024) },
          ]),
        ),
      413,
      "payload_too_large",
    );
  });

  it("refuses writes past the workspace quota", async () => {
    const [ws] = await t.database.db.select({ id: skills.workspaceId }).from(skills).limit(1);
    // A blob row that claims a gigabyte stands in for a full workspace.
    await t.database.db.insert(skillBlobs).values({
      workspaceId: ws?.id ?? "",
      digest: "sha256:stand-in",
      size: 1024 * 1024 * 1024,
      content: new Uint8Array(1),
    });
    try {
      const error = await expectRefused(
        () => api(base, { method: "POST", body: { name: "over-quota", description: "x", instructions: "x" } }),
        413,
        "payload_too_large",
      );
      expect(error.message).toMatch(/quota/);
    } finally {
      await t.database.db.delete(skillBlobs).where(eq(skillBlobs.digest, "sha256:stand-in"));
    }
  });
});

describe("removal", () => {
  it("removes an item and the blobs only it used", async () => {
    const shared = "shared reference\n";
    for (const name of ["keep-me", "drop-me"]) {
      await api(base, {
        method: "POST",
        body: { name, description: "x", instructions: name, files: [{ path: "shared.md", content: shared }] },
      });
    }
    const drop = await (await api(`${base}/drop-me`)).json();
    expect((await api(`${base}/drop-me?revision=${drop.revision + 5}`, { method: "DELETE" })).status).toBe(409);
    expect((await api(`${base}/drop-me?revision=${drop.revision}`, { method: "DELETE" })).status).toBe(204);
    expect((await api(`${base}/drop-me`)).status).toBe(404);
    const kept = await api(`${base}/keep-me/file?path=shared.md`);
    expect(await kept.text()).toBe(shared);
    const dropDoc = drop.files.find((f: { path: string }) => f.path === "SKILL.md").digest;
    const left = await t.database.db.select().from(skillBlobs).where(eq(skillBlobs.digest, dropDoc));
    expect(left).toHaveLength(0);
  });

  it("hides another user's items exactly like missing ones", async () => {
    const bob = await TestUser.signUp(t.app, "bob@example.com");
    const res = await bob.request("/v1/workspaces/ada/skills/code-review");
    const missing = await bob.request("/v1/workspaces/nope/skills/code-review");
    expect(res.status).toBe(404);
    expect(missing.status).toBe(404);
    expect((await (await bob.request("/v1/workspaces/me/skills")).json()).items).toEqual([]);
  });
});

describe("archives and JSON follow the same rules, and errors say each thing once (issues 21 and 22)", () => {
  const doc = (name: string, extra = "") => `---\nname: ${name}\ndescription: Does a thing.\n${extra}---\n\nBody.\n`;

  it("refuses an archive whose folder name differs from the frontmatter name, naming both", async () => {
    const error = await expectRefused(
      async () => importZip(await zip([{ name: "folder-name/SKILL.md", text: doc("front-name") }])),
      400,
      "invalid_request",
    );
    expect(error.message).toMatch(/folder-name/);
    expect(error.message).toMatch(/front-name/);
  });

  it("imports an archive in a folder of its own name, allowed-tools as a YAML list kept as written", async () => {
    const text = doc("listed-tools", "allowed-tools:\n  - Read\n  - Bash(git:*)\n");
    const res = await importZip(await zip([{ name: "listed-tools/SKILL.md", text }]));
    const body = await res.json();
    expect(res.status, JSON.stringify(body)).toBe(201);
    expect(body.document).toBe(text);
  });

  it("names a bad path once, not twice", async () => {
    const error = await expectRefused(
      () =>
        api(base, {
          method: "POST",
          body: {
            name: "double-path",
            description: "d",
            instructions: "b",
            files: [{ path: "references//notes.md", content: "x" }],
          },
        }),
      400,
      "invalid_request",
    );
    expect(error.message).toContain("references//notes.md");
    expect(error.message.split("references//notes.md")).toHaveLength(2);
  });

  it("gives the same message for a control character in a path, in JSON and in an archive", async () => {
    const json = await expectRefused(
      () =>
        api(base, {
          method: "POST",
          body: { name: "ctl", description: "d", instructions: "b", files: [{ path: "a\u0001b.md", content: "x" }] },
        }),
      400,
      "invalid_request",
    );
    const archived = await expectRefused(
      async () =>
        importZip(
          await zip([
            { name: "SKILL.md", text: doc("ctl") },
            { name: "a\u0001b.md", text: "x" },
          ]),
        ),
      400,
      "invalid_request",
    );
    expect(json.details?.[0]?.message).toBe(archived.details?.[0]?.message);
    expect(archived.details?.[0]?.path).toBe("a\u0001b.md");
  });

  it("points a YAML error at the line where the problem starts, not the closing fence", async () => {
    const error = await expectRefused(
      () =>
        api(`${base}/import`, {
          method: "POST",
          body: { text: '---\nname: yaml-line\ndescription: "unclosed\nmore: x\n---\n\nBody.\n' },
        }),
      400,
      "invalid_request",
    );
    expect(error.details?.[0]?.line).toBe(3);
  });

  it("gives exact bytes for a SKILL.md one byte over 128 KiB", async () => {
    const head = "---\nname: big-doc\ndescription: d\n---\n\n";
    const body = "x".repeat(128 * 1024 - new TextEncoder().encode(head).byteLength + 1);
    const error = await expectRefused(
      () => api(`${base}/import`, { method: "POST", body: { text: head + body } }),
      413,
      "payload_too_large",
    );
    expect(error.message).toContain("131,073 bytes (1 byte over)");
    expect(error.message).not.toContain("128.1 KiB");
  });
});
