/**
 * Upstream servers' skills beside the user's own (DESIGN.md "Upstream skills", PROTOCOLS.md §3):
 * a real upstream serving the Skills extension with the SDK's helpers, imported and approved as a
 * user would; the official SDK client (and its SkillsClient, which verifies every file) against
 * Loadout's /mcp on both eras. An approved skill is listed with origin server:<slug> under
 * skill://_servers/<slug>/…, got, and read with its digests checked; the `skills` tool lists and
 * gets it as server:<slug>/<name>; a changed skill waits for review; bytes that do not match their
 * digest are withheld with the reason; the user's own skill of the same name wins; a disabled or
 * out-of-scope server contributes none; another tenant sees nothing of it; files are fetched only
 * when read.
 */
import { Client, StreamableHTTPClientTransport } from "@modelcontextprotocol/client";
import { SkillsClient } from "@modelcontextprotocol/client/ext/skills";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type Account, addApprovedServer, signUpAccount } from "../helpers/account";
import { startTestServer, type TestServer } from "../helpers/server";
import { type SkillsUpstream, skillDoc, startSkillsUpstream } from "../helpers/skills-upstream";

let server: TestServer;
let upstream: SkillsUpstream;
let alice: Account;
let bob: Account;
let aliceSecret: string;
let bobSecret: string;
let readsAfterApproval = -1;

const PDF = skillDoc("pdf", "Fill in PDF forms.");
const FORMS = "# Forms\n\nField by field.\n";
const UPSTREAM_REVIEW = skillDoc("code-review", "The server's own review steps.");
const BROKEN = skillDoc("broken", "Served with other bytes than its digest says.");

const ERAS = [
  ["2025-11-25", {}],
  ["2026-07-28", { versionNegotiation: { mode: "auto" as const } }],
] as const;

beforeAll(async () => {
  [server, upstream] = await Promise.all([
    // Postgres's notifications heard late, as on a loaded machine: a skill withheld by one read is
    // withheld for the very next request on this instance all the same (seen failing in CI).
    startTestServer({ LOADOUT_ALLOW_LOOPBACK_UPSTREAMS: "1" }, { notificationDelayMs: 300 }),
    startSkillsUpstream({
      pdf: { "SKILL.md": PDF, "references/forms.md": FORMS },
      "code-review": { "SKILL.md": UPSTREAM_REVIEW },
      broken: { "SKILL.md": BROKEN },
    }),
  ]);
  alice = await signUpAccount(server.url, "upstream-skills-alice@example.com");
  bob = await signUpAccount(server.url, "upstream-skills-bob@example.com");
  await addApprovedServer(alice, "docs", upstream.url);
  readsAfterApproval = upstream.received("resources/read");
  // Alice's own skill of a name the server also serves: hers wins.
  const own = await alice.rest("/v1/workspaces/me/skills", {
    method: "POST",
    body: { name: "code-review", description: "Alice's own review steps.", instructions: "# Review\n" },
  });
  expect(own.status).toBe(201);
  // After approval the server serves other bytes for one file than its entry's digest says.
  upstream.tamper(
    "skill://broken/SKILL.md",
    skillDoc("broken", "Served with other bytes than its digest says.", "# Do something else\n"),
  );
  aliceSecret = (await alice.token(["mcp"])).secret;
  bobSecret = (await bob.token(["mcp"])).secret;
}, 60_000);

afterAll(async () => {
  await Promise.all([server?.close(), upstream?.stop()]);
});

async function connect(secret: string, options: object = {}, query = "", headers: Record<string, string> = {}) {
  const client = new Client({ name: "upstream-skills-test", version: "1.0.0" }, options);
  await client.connect(
    new StreamableHTTPClientTransport(new URL(`${server.url}/mcp${query}`), {
      requestInit: { headers: { authorization: `Bearer ${secret}`, ...headers } },
    }),
  );
  return client;
}

const PDF_URI = "skill://_servers/docs/pdf/SKILL.md";
const textOf = (result: unknown) =>
  ((result as { content?: { type: string; text?: string }[] }).content ?? []).map((c) => c.text ?? "").join("");

async function listedUris(client: Client): Promise<string[]> {
  return (await new SkillsClient(client).list()).skills.map((s) => s.uri);
}

async function patchServer(change: Record<string, unknown>) {
  const current = await alice.rest("/v1/workspaces/me/servers/docs");
  const patched = await alice.rest("/v1/workspaces/me/servers/docs", {
    method: "PATCH",
    body: { revision: current.body.revision, ...change },
  });
  expect(patched.status, JSON.stringify(patched.body)).toBe(200);
}

describe("approval and fetching", () => {
  it("stores the server's skills for review as items of kind skill, fetching no file on Test or approval", async () => {
    expect(readsAfterApproval).toBe(0);
    const items = await alice.rest("/v1/workspaces/me/servers/docs/items");
    const skills = (items.body.items as { kind: string; key: string; exposedKey: string; pin: string }[]).filter(
      (i) => i.kind === "skill",
    );
    expect(skills.map((s) => [s.key, s.exposedKey, s.pin])).toEqual([
      ["skill://broken/SKILL.md", "skill://_servers/docs/broken/SKILL.md", "approved"],
      ["skill://code-review/SKILL.md", "skill://_servers/docs/code-review/SKILL.md", "approved"],
      ["skill://pdf/SKILL.md", PDF_URI, "approved"],
    ]);
    // The server's skill:// template is served through the skills, never as a plain template.
    expect((items.body.items as { key: string }[]).some((i) => i.key === "skill://{+path}")).toBe(false);
  });
});

describe.each(ERAS)("on %s", (_era, options) => {
  it("lists an approved upstream skill beside the user's own, with its origin and namespaced URIs", async () => {
    const client = await connect(aliceSecret, options);
    try {
      const skills = new SkillsClient(client);
      expect(skills.supported).toBe(true);
      const { skills: entries } = await skills.list();
      const pdf = entries.find((s) => s.uri === PDF_URI);
      expect(pdf?.frontmatter).toEqual({ name: "pdf", description: "Fill in PDF forms." });
      expect(pdf?._meta?.["dev.loadout/origin"]).toBe("server:docs");
      expect(Array.isArray(pdf?.resources) && pdf.resources.map((r) => r.uri).sort()).toEqual([
        PDF_URI,
        "skill://_servers/docs/pdf/references/forms.md",
      ]);
      // The user's own code-review wins the name; the server's is not offered.
      const uris = entries.map((s) => s.uri);
      expect(uris).toContain("skill://code-review/SKILL.md");
      expect(uris).not.toContain("skill://_servers/docs/code-review/SKILL.md");
      expect(entries.find((s) => s.uri === "skill://code-review/SKILL.md")?._meta?.["dev.loadout/origin"]).toBe(
        "personal",
      );
    } finally {
      await client.close();
    }
  });

  it("passes the skills extension through at /mcp/s as the server gives it, under the same pins", async () => {
    const client = await connect(aliceSecret, options, "/s/me/docs");
    try {
      const skills = new SkillsClient(client);
      expect(skills.supported).toBe(true);
      const listed = (await skills.list()).skills.map((s) => s.uri).sort();
      expect(listed).toEqual(["skill://broken/SKILL.md", "skill://code-review/SKILL.md", "skill://pdf/SKILL.md"]);
      const { skill } = await skills.get("skill://pdf/SKILL.md");
      const doc = await skills.read(skill);
      expect(doc.verified).toBe(true);
      expect(doc.text).toBe(PDF);
      // A file no approved manifest lists is refused before the server is asked.
      await expect(client.readResource({ uri: "skill://pdf/secrets.md" })).rejects.toThrow(/not among/);
      // Bytes that do not match the approved manifest are withheld here too, and so is the skill.
      await expect(client.readResource({ uri: "skill://broken/SKILL.md" })).rejects.toThrow(
        /withheld: the server served \d+ bytes where the approved manifest says \d+/,
      );
      expect((await skills.list()).skills.map((s) => s.uri)).not.toContain("skill://broken/SKILL.md");
      expect((await alice.rest("/v1/workspaces/me/servers/docs/test", { method: "POST" })).status).toBe(200);
    } finally {
      await client.close();
    }
  });

  it("gets it and reads its files from the server, each verified against its digest", async () => {
    const client = await connect(aliceSecret, options);
    try {
      const skills = new SkillsClient(client);
      const { skill } = await skills.get(PDF_URI);
      expect(skill.frontmatter.name).toBe("pdf");
      const doc = await skills.read(skill);
      expect(doc.verified).toBe(true);
      expect(doc.text).toBe(PDF);
      const forms = await skills.read(skill, "references/forms.md");
      expect(new TextDecoder().decode(forms.bytes)).toBe(FORMS);
      const read = await client.readResource({ uri: "skill://_servers/docs/pdf/references/forms.md" });
      expect(read.contents[0]).toMatchObject({ uri: "skill://_servers/docs/pdf/references/forms.md", text: FORMS });
      await expect(skills.get("skill://_servers/docs/code-review/SKILL.md")).rejects.toThrow();
    } finally {
      await client.close();
    }
  });

  it("withholds a file whose bytes do not match its digest, saying why", async () => {
    const client = await connect(aliceSecret, options);
    try {
      const got = await client.callTool({ name: "skills", arguments: { action: "get", name: "server:docs/broken" } });
      expect(got.isError).toBe(true);
      expect(textOf(got)).toMatch(/SKILL\.md of server:docs\/broken is withheld/);
      expect(textOf(got)).not.toContain("Do something else");
      // Checked again after a Test: the read says why, as the tool did.
      expect((await alice.rest("/v1/workspaces/me/servers/docs/test", { method: "POST" })).status).toBe(200);
      await expect(client.readResource({ uri: "skill://_servers/docs/broken/SKILL.md" })).rejects.toThrow(
        /withheld: the server served \d+ bytes where the approved manifest says \d+/,
      );
      // From then on the whole skill is withheld, everywhere, with the reason on its item.
      expect(await listedUris(client)).not.toContain("skill://_servers/docs/broken/SKILL.md");
      expect(await listedUris(client)).toContain(PDF_URI);
      const items = await alice.rest("/v1/workspaces/me/servers/docs/items");
      const broken = (items.body.items as { key: string; problem: string | null; pin: string }[]).find(
        (i) => i.key === "skill://broken/SKILL.md",
      );
      expect(broken?.pin).toBe("approved");
      expect(broken?.problem).toMatch(/SKILL\.md did not match its approved manifest/);
      // Test lists it again, which checks it anew: offered again until a read finds it out.
      expect((await alice.rest("/v1/workspaces/me/servers/docs/test", { method: "POST" })).status).toBe(200);
      expect(await listedUris(client)).toContain("skill://_servers/docs/broken/SKILL.md");
    } finally {
      await client.close();
    }
  });

  it("lists and gets it with the skills tool, as server:<slug>/<name>", async () => {
    const client = await connect(aliceSecret, options);
    try {
      const listed = await client.callTool({ name: "skills", arguments: { action: "list" } });
      const items = (listed.structuredContent as { items: Record<string, unknown>[] }).items;
      expect(items).toContainEqual({
        name: "server:docs/pdf",
        kind: "skill",
        origin: "server:docs",
        description: "Fill in PDF forms.",
        // Its manifest's bytes at about four a token, as the user's own items are estimated.
        tokens: Math.ceil((PDF.length + FORMS.length) / 4),
      });
      expect(items.some((i) => i.name === "server:docs/code-review")).toBe(false);
      expect(items.some((i) => i.name === "code-review" && i.origin === "personal")).toBe(true);
      const got = await client.callTool({ name: "skills", arguments: { action: "get", name: "server:docs/pdf" } });
      expect(got.isError).toBeFalsy();
      expect(textOf(got)).toContain("Follow these steps.");
      expect(textOf(got)).toContain("references/forms.md");
      // The structured result is the one the skills view renders, as for the user's own items.
      expect(got.structuredContent).toMatchObject({
        name: "server:docs/pdf",
        origin: "server:docs",
        path: "SKILL.md",
        next_start: null,
        digest: expect.stringMatching(/^sha256:[0-9a-f]{64}$/),
        files: [
          { path: "SKILL.md", size: expect.any(Number), digest: expect.stringMatching(/^sha256:/) },
          { path: "references/forms.md", size: FORMS.length, digest: expect.stringMatching(/^sha256:/) },
        ],
      });
      const file = await client.callTool({
        name: "skills",
        arguments: { action: "get", name: "server:docs/pdf", path: "references/forms.md" },
      });
      expect(textOf(file)).toBe(FORMS);
      expect(client.getInstructions() ?? "").toContain("server:docs/pdf");
    } finally {
      await client.close();
    }
  });
});

describe("what is never served", () => {
  it("refuses a file the approved manifest does not list, without asking the server", async () => {
    const client = await connect(aliceSecret);
    try {
      const before = upstream.received("resources/read");
      await expect(client.readResource({ uri: "skill://_servers/docs/pdf/secret.md" })).rejects.toThrow();
      await expect(client.readResource({ uri: "skill://_servers/docs/code-review/SKILL.md" })).rejects.toThrow();
      expect(upstream.received("resources/read")).toBe(before);
    } finally {
      await client.close();
    }
  });

  it("shows another tenant nothing of it", async () => {
    const client = await connect(bobSecret);
    try {
      expect((await listedUris(client)).some((uri) => uri.startsWith("skill://_servers/"))).toBe(false);
      await expect(new SkillsClient(client).get(PDF_URI)).rejects.toThrow();
      await expect(client.readResource({ uri: PDF_URI })).rejects.toThrow();
      const got = await client.callTool({ name: "skills", arguments: { action: "get", name: "server:docs/pdf" } });
      expect(got.isError).toBe(true);
    } finally {
      await client.close();
    }
  });

  it("serves none of a disabled server's skills, nor of one scoped to another project", async () => {
    await patchServer({ enabled: false });
    try {
      const off = await connect(aliceSecret);
      try {
        expect(await listedUris(off)).not.toContain(PDF_URI);
        await expect(off.readResource({ uri: PDF_URI })).rejects.toThrow();
      } finally {
        await off.close();
      }
    } finally {
      await patchServer({ enabled: true });
    }
    await patchServer({ scope: { mode: "projects", projects: ["/work/other"] } });
    try {
      const elsewhere = await connect(aliceSecret, {}, "", { "x-loadout-project": "/work/mine" });
      const there = await connect(aliceSecret, {}, "", { "x-loadout-project": "/work/other/sub" });
      try {
        expect(await listedUris(elsewhere)).not.toContain(PDF_URI);
        const got = await elsewhere.callTool({
          name: "skills",
          arguments: { action: "get", name: "server:docs/pdf" },
        });
        expect(got.isError).toBe(true);
        expect(await listedUris(there)).toContain(PDF_URI);
      } finally {
        await Promise.all([elsewhere.close(), there.close()]);
      }
    } finally {
      await patchServer({ scope: { mode: "global", projects: [] } });
    }
  });
});

describe("modes and teams", () => {
  it("offers an upstream skill in plan mode only once it is marked safe there, as other items", async () => {
    const plan = await connect(aliceSecret, {}, "?mode=plan");
    try {
      expect(await listedUris(plan)).not.toContain(PDF_URI);
    } finally {
      await plan.close();
    }
    const marked = await alice.rest("/v1/workspaces/me/servers/docs/items", {
      method: "PATCH",
      body: { kind: "skill", key: "skill://pdf/SKILL.md", planSafe: true },
    });
    expect(marked.status, JSON.stringify(marked.body)).toBe(200);
    const again = await connect(aliceSecret, {}, "?mode=plan");
    try {
      expect(await listedUris(again)).toContain(PDF_URI);
    } finally {
      await again.close();
    }
  });

  it("names a team's server's skills with the team's prefix, in URIs, origin and the tool's name", async () => {
    expect(
      (await alice.rest("/v1/workspaces", { method: "POST", body: { slug: "acme-up", name: "Acme" } })).status,
    ).toBe(201);
    for (const [path, body] of [
      ["import", { text: JSON.stringify({ mcpServers: { manuals: { url: upstream.url } } }) }],
      ["manuals/test", undefined],
      ["manuals/items/approve", {}],
    ] as const) {
      const answer = await alice.rest(`/v1/workspaces/acme-up/servers/${path}`, {
        method: "POST",
        ...(body === undefined ? {} : { body }),
      });
      expect(answer.status, JSON.stringify(answer.body)).toBe(200);
    }
    const client = await connect(aliceSecret);
    try {
      const entry = (await new SkillsClient(client).list()).skills.find(
        (s) => s.uri === "skill://_servers/acme-up_manuals/pdf/SKILL.md",
      );
      expect(entry?._meta?.["dev.loadout/origin"]).toBe("server:acme-up_manuals");
      const got = await client.callTool({
        name: "skills",
        arguments: { action: "get", name: "server:acme-up_manuals/pdf" },
      });
      expect(textOf(got)).toContain("Follow these steps.");
    } finally {
      await client.close();
    }
  });
});

describe("a changed upstream skill", () => {
  it("is withheld until the user approves it again, then served as it is now", async () => {
    await upstream.setSkill("pdf", { "SKILL.md": skillDoc("pdf", "Fill in PDF forms, now with signatures.") });
    const tested = await alice.rest("/v1/workspaces/me/servers/docs/test", { method: "POST" });
    expect(tested.status).toBe(200);
    const items = await alice.rest("/v1/workspaces/me/servers/docs/items");
    const pdf = (items.body.items as { kind: string; key: string; pin: string }[]).find(
      (i) => i.kind === "skill" && i.key === "skill://pdf/SKILL.md",
    );
    expect(pdf?.pin).toBe("changed");
    const client = await connect(aliceSecret);
    try {
      expect(await listedUris(client)).not.toContain(PDF_URI);
      await expect(new SkillsClient(client).get(PDF_URI)).rejects.toThrow();
      const got = await client.callTool({ name: "skills", arguments: { action: "get", name: "server:docs/pdf" } });
      expect(got.isError).toBe(true);
      expect(textOf(got)).toMatch(/waiting for review/);
    } finally {
      await client.close();
    }
    const approved = await alice.rest("/v1/workspaces/me/servers/docs/items/approve", {
      method: "POST",
      body: { items: [{ kind: "skill", key: "skill://pdf/SKILL.md" }] },
    });
    expect(approved.status).toBe(200);
    const after = await connect(aliceSecret, { versionNegotiation: { mode: "auto" } });
    try {
      const skills = new SkillsClient(after);
      const { skill } = await skills.get(PDF_URI);
      expect(skill.frontmatter.description).toBe("Fill in PDF forms, now with signatures.");
      expect(Array.isArray(skill.resources) && skill.resources.map((r) => r.uri)).toEqual([PDF_URI]);
      expect((await skills.read(skill)).verified).toBe(true);
    } finally {
      await after.close();
    }
  });
});

describe("a skill the server offers that Loadout cannot serve", () => {
  it("is left out of the server's items, and the operator's log says which and why", async () => {
    const files: Record<string, string> = { "SKILL.md": skillDoc("sprawl", "More files than a skill may hold.") };
    for (let i = 0; i < 512; i++) files[`parts/${i}.md`] = `part ${i}\n`;
    await upstream.setSkill("sprawl", files);
    const tested = await alice.rest("/v1/workspaces/me/servers/docs/test", { method: "POST" });
    expect(tested.status, JSON.stringify(tested.body)).toBe(200);
    const items = await alice.rest("/v1/workspaces/me/servers/docs/items");
    expect((items.body.items as { key: string }[]).map((i) => i.key)).not.toContain("skill://sprawl/SKILL.md");
    const told = server.logs.find((e) => e.msg === "an upstream's entry was left out of its listing");
    expect(told).toMatchObject({ level: "warn", kind: "skill", key: "skill://sprawl/SKILL.md" });
    expect(String(told?.reason)).toMatch(/512/);
  });
});
