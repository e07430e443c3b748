/**
 * The fixture corpus (test/fixtures) round-trips byte for byte: every skill and persona is
 * imported twice — as a .zip archive, and as JSON fields with base64 files — and every file read
 * back has the bytes, size and digest in manifest.json. Exercises CRLF, BOMs, non-ASCII names
 * and text, binary assets, empty files and deep folders, on PGlite and on Postgres.
 */
import { readdirSync, readFileSync, statSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { bearer, createTestApp, type TestApp, TestUser } from "@loadout/api/testing";
import { BlobWriter, Uint8ArrayReader, ZipWriter } from "@zip.js/zip.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";

const FIXTURES = fileURLToPath(new URL("../../fixtures", import.meta.url));

interface ManifestItem {
  kind: "skill" | "persona";
  name: string;
  files: { path: string; size: number; digest: string }[];
}
const manifest = JSON.parse(readFileSync(path.join(FIXTURES, "manifest.json"), "utf8")) as {
  items: Record<string, ManifestItem>;
};
const items = Object.entries(manifest.items);

function walk(dir: string, prefix = ""): string[] {
  return readdirSync(dir).flatMap((entry) => {
    const full = path.join(dir, entry);
    return statSync(full).isDirectory() ? walk(full, `${prefix}${entry}/`) : [`${prefix}${entry}`];
  });
}

let t: TestApp;
let token: string;
let other: string;
beforeAll(async () => {
  t = await createTestApp();
  const user = await TestUser.signUp(t.app, "corpus@example.com");
  token = (await user.createToken({ name: "corpus", scopes: ["skills:read", "skills:write"] })).secret;
  await user.request("/v1/workspaces", { method: "POST", body: { slug: "corpus-json", name: "Corpus via JSON" } });
  other = "corpus-json";
});
afterAll(() => t.close());

async function expectRoundTrip(ws: string, item: ManifestItem, folder: string) {
  const detail = await (await t.app.request(`/v1/workspaces/${ws}/skills/${item.name}`, bearer(token))).json();
  expect(detail.kind).toBe(item.kind);
  expect(detail.files).toEqual(item.files);
  for (const file of item.files) {
    const res = await t.app.request(
      `/v1/workspaces/${ws}/skills/${item.name}/file?path=${encodeURIComponent(file.path)}`,
      bearer(token),
    );
    expect(res.status, file.path).toBe(200);
    const bytes = new Uint8Array(await res.arrayBuffer());
    expect(Buffer.from(bytes).equals(readFileSync(path.join(folder, file.path))), `${item.name}/${file.path}`).toBe(
      true,
    );
    expect(res.headers.get("etag")).toBe(`"${file.digest}"`);
  }
}

describe("the fixture corpus", () => {
  it("has at least 20 items, and the manifest matches the files on disk", () => {
    expect(items.length).toBeGreaterThanOrEqual(20);
    for (const [key, item] of items) {
      expect(walk(path.join(FIXTURES, key)).sort()).toEqual(item.files.map((f) => f.path).sort());
    }
  });

  it.each(items)("%s round-trips as an archive", async (key, item) => {
    const folder = path.join(FIXTURES, key);
    const writer = new ZipWriter(new BlobWriter("application/zip"));
    for (const file of walk(folder))
      await writer.add(`${item.name}/${file}`, new Uint8ArrayReader(readFileSync(path.join(folder, file))));
    const archive = new Uint8Array(await (await writer.close()).arrayBuffer());
    const res = await t.app.request(`/v1/workspaces/me/skills/import?kind=${item.kind}`, {
      method: "POST",
      headers: { authorization: `Bearer ${token}`, "content-type": "application/zip" },
      body: archive as Uint8Array<ArrayBuffer>,
    });
    expect(res.status, await res.clone().text()).toBe(201);
    await expectRoundTrip("me", item, folder);
  });

  it.each(items)("%s round-trips as JSON with base64 files", async (key, item) => {
    const folder = path.join(FIXTURES, key);
    const doc = item.kind === "skill" ? "SKILL.md" : "PERSONA.md";
    const text = readFileSync(path.join(folder, doc), "utf8");
    // Paste the document, then add the other files: both routes must keep every byte.
    const created = await t.app.request(
      `/v1/workspaces/${other}/skills/import`,
      bearer(token, { method: "POST", body: { kind: item.kind, text } }),
    );
    expect(created.status, await created.clone().text()).toBe(201);
    const rest = walk(folder).filter((f) => f !== doc);
    if (rest.length > 0) {
      const files = Object.fromEntries(
        rest.map((f) => [f, { contentBase64: readFileSync(path.join(folder, f)).toString("base64") }]),
      );
      const patched = await t.app.request(
        `/v1/workspaces/${other}/skills/${item.name}`,
        bearer(token, { method: "PATCH", body: { revision: 1, files } }),
      );
      expect(patched.status, await patched.clone().text()).toBe(200);
    }
    await expectRoundTrip(other, item, folder);
  });
});
