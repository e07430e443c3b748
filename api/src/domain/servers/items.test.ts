import { describe, expect, it } from "vitest";
import {
  exposedItemKey,
  exposedUri,
  itemHash,
  itemKey,
  itemWithheldBecause,
  kindListedBy,
  withExposedUris,
} from "./items";

describe("itemKey and itemHash", () => {
  it("keys resources by URI, templates by URI template and prompts by name", () => {
    expect(itemKey("resource", { uri: "file:///a", name: "a" })).toBe("file:///a");
    expect(itemKey("template", { uriTemplate: "file:///{path}", name: "f" })).toBe("file:///{path}");
    expect(itemKey("prompt", { name: "greet" })).toBe("greet");
    expect(itemKey("resource", { name: "no uri" })).toBeNull();
  });

  it("changes with the description or arguments, not with key order or size", () => {
    const a = itemHash("resource", { uri: "x://1", name: "one", description: "d", size: 10 });
    expect(itemHash("resource", { size: 99, description: "d", name: "one", uri: "x://1" })).toBe(a);
    expect(itemHash("resource", { uri: "x://1", name: "one", description: "other" })).not.toBe(a);
    const p = itemHash("prompt", { name: "p", arguments: [{ name: "x" }] });
    expect(itemHash("prompt", { name: "p", arguments: [{ name: "x", required: true }] })).not.toBe(p);
    expect(itemHash("template", { uriTemplate: "x://1", name: "one", description: "d" })).not.toBe(a);
  });
});

describe("exposedUri", () => {
  it("keeps ui:// and skill:// under a reserved prefix and puts anything else under loadout://", () => {
    expect(exposedUri("ui://weather/view.html", "wx", null)).toBe("ui://_servers/wx/weather/view.html");
    expect(exposedUri("skill://pdf/SKILL.md", "docs", "acme")).toBe("skill://_servers/acme_docs/pdf/SKILL.md");
    expect(exposedUri("test://static/resource/{id}", "ev", null)).toBe(
      "loadout://servers/ev/test://static/resource/{id}",
    );
  });

  it("never maps two servers' URIs to one", () => {
    expect(exposedUri("file:///a", "one", null)).not.toBe(exposedUri("file:///a", "two", null));
    expect(exposedUri("file:///a", "one", "team")).not.toBe(exposedUri("file:///a", "one", null));
  });

  it("names prompts as tools are named", () => {
    expect(exposedItemKey("prompt", "greet", "ev", null)).toBe("ev_greet");
  });
});

describe("itemWithheldBecause", () => {
  const approved = { hash: "h", approvedHash: "h", enabled: true, planSafe: false };
  it("serves an approved, enabled item in agent mode", () => {
    expect(itemWithheldBecause(approved, "agent")).toBeNull();
  });
  it("withholds what is unknown, new, changed, off, or not plan-safe in plan mode", () => {
    expect(itemWithheldBecause(undefined, "agent")).toMatch(/not reviewed/);
    expect(itemWithheldBecause({ ...approved, approvedHash: null }, "agent")).toMatch(/not approved/);
    expect(itemWithheldBecause({ ...approved, approvedHash: "old" }, "agent")).toMatch(/changed/);
    expect(itemWithheldBecause({ ...approved, enabled: false }, "agent")).toMatch(/switched off/);
    expect(itemWithheldBecause(approved, "plan")).toMatch(/plan mode/);
    expect(itemWithheldBecause({ ...approved, planSafe: true }, "plan")).toBeNull();
  });
  it("knows which methods list items", () => {
    expect(kindListedBy("resources/templates/list")).toBe("template");
    expect(kindListedBy("resources/read")).toBeNull();
  });
});

describe("withExposedUris", () => {
  const expose = (uri: string) => exposedUri(uri, "ev", null);
  it("rewrites resource links and embedded resources, and nothing else", () => {
    const result = {
      content: [
        { type: "text", text: "file:///a" },
        { type: "resource_link", uri: "file:///a", name: "a" },
        { type: "resource", resource: { uri: "ui://view", text: "<p>" } },
      ],
    };
    expect(withExposedUris(result, expose).content).toEqual([
      { type: "text", text: "file:///a" },
      { type: "resource_link", uri: "loadout://servers/ev/file:///a", name: "a" },
      { type: "resource", resource: { uri: "ui://_servers/ev/view", text: "<p>" } },
    ]);
  });
  it("returns a result without links unchanged", () => {
    const plain = { content: [{ type: "text", text: "x" }] };
    expect(withExposedUris(plain, expose)).toBe(plain);
  });
});
