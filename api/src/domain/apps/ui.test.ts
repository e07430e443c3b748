import { describe, expect, it } from "vitest";
import { itemHash, withRecordedDigest } from "../servers/items";
import {
  listedFor,
  toolViewMeta,
  toolViewOf,
  uiNegotiated,
  VIEW_DIGEST_KEY,
  viewContentDigest,
  viewContentProblem,
  viewRefusal,
  withoutViews,
} from "./ui";

const MIME = "text/html;profile=mcp-app";

describe("uiNegotiated", () => {
  it("needs the extension with the view type among its mimeTypes", () => {
    expect(uiNegotiated({ extensions: { "io.modelcontextprotocol/ui": { mimeTypes: [MIME] } } })).toBe(true);
    expect(uiNegotiated({ extensions: { "io.modelcontextprotocol/ui": { mimeTypes: ["text/html"] } } })).toBe(false);
    expect(uiNegotiated({ extensions: { "io.modelcontextprotocol/ui": {} } })).toBe(false);
    expect(uiNegotiated({ extensions: {} })).toBe(false);
    expect(uiNegotiated(undefined)).toBe(false);
    expect(uiNegotiated("ui")).toBe(false);
  });
});

describe("toolViewOf", () => {
  it("reads ui.resourceUri, or the legacy flat key", () => {
    expect(toolViewOf({ ui: { resourceUri: "ui://x/view.html" } })).toEqual({ resourceUri: "ui://x/view.html" });
    expect(toolViewOf({ "ui/resourceUri": "ui://x/old.html" })).toEqual({ resourceUri: "ui://x/old.html" });
    expect(toolViewOf({ ui: { resourceUri: "ui://a", visibility: ["app", "bogus"] } })).toEqual({
      resourceUri: "ui://a",
      visibility: ["app"],
    });
  });
  it("refuses what is not a ui:// link", () => {
    expect(toolViewOf({ ui: { resourceUri: "https://evil.example/x.html" } })).toBeNull();
    expect(toolViewOf({ ui: { resourceUri: `ui://${"a".repeat(3000)}` } })).toBeNull();
    expect(toolViewOf(null)).toBeNull();
    expect(toolViewOf({})).toBeNull();
  });
  it("lists both keys, as the ext-apps helpers write them", () => {
    expect(toolViewMeta({ resourceUri: "ui://a" })).toEqual({
      ui: { resourceUri: "ui://a" },
      "ui/resourceUri": "ui://a",
    });
  });
  it("says how to negotiate in a refusal", () => {
    expect(viewRefusal("ui://loadout/skills.html")).toMatch(/io\.modelcontextprotocol\/ui.*mimeTypes/);
  });
});

describe("what a client is listed", () => {
  const plain = { definition: "plain" };
  const linked = { view: { resourceUri: "ui://a" }, definition: "plain", appDefinition: "with view" };
  const appOnly = {
    view: { resourceUri: "ui://a", visibility: ["app" as const] },
    definition: "plain",
    appDefinition: "with view",
  };
  it("gives the view to a client that negotiated Apps, and hides view-only tools from one that did not", () => {
    expect(listedFor(true, linked)).toEqual(["with view"]);
    expect(listedFor(true, plain)).toEqual(["plain"]);
    expect(listedFor(false, linked)).toEqual(["plain"]);
    expect(listedFor(false, appOnly)).toEqual([]);
    expect(listedFor(true, appOnly)).toEqual(["with view"]);
  });
  it("leaves ui:// resources and templates out of a listing for a client that did not negotiate", () => {
    const listed = { resources: [{ uri: "ui://x" }, { uri: "memo://y" }], nextCursor: "c" };
    expect(withoutViews("resources/list", listed)).toEqual({ resources: [{ uri: "memo://y" }], nextCursor: "c" });
    expect(withoutViews("resources/templates/list", { resourceTemplates: [{ uriTemplate: "ui://{x}" }] })).toEqual({
      resourceTemplates: [],
    });
    expect(withoutViews("prompts/list", { prompts: [{ name: "ui://x" }] })).toEqual({ prompts: [{ name: "ui://x" }] });
  });
});

describe("a view's content pin", () => {
  const read = (text: string) => ({ contents: [{ uri: "ui://v", mimeType: "text/html;profile=mcp-app", text }] });
  it("passes a view on only as recorded, and not before it was recorded", () => {
    const recorded = viewContentDigest(read("<p>a</p>"));
    expect(recorded).toMatch(/^sha256:[0-9a-f]{64}$/);
    expect(viewContentProblem(recorded, read("<p>a</p>"))).toBeNull();
    expect(viewContentProblem(recorded, read("<p>b</p>"))).toMatch(/changed since it was approved/);
    expect(viewContentProblem(undefined, read("<p>a</p>"))).toMatch(/not checked yet/);
  });
  it("is part of the resource's pin, and a listing is compared with the digest its row recorded", () => {
    const listed = { uri: "ui://v", name: "v", mimeType: "text/html;profile=mcp-app" };
    const stored = { ...listed, [VIEW_DIGEST_KEY]: "sha256:1" };
    expect(itemHash("resource", stored)).not.toBe(itemHash("resource", listed));
    expect(itemHash("resource", withRecordedDigest(listed, stored))).toBe(itemHash("resource", stored));
    expect(withRecordedDigest(listed, { uri: "ui://v" })).toBe(listed);
  });
});
