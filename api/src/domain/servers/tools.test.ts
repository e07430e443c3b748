import { describe, expect, it } from "vitest";
import {
  actionValues,
  boundResult,
  canonicalJson,
  nameTools,
  pinState,
  planAllows,
  planDescription,
  planSafeProblem,
  toolDefinitionHash,
} from "./tools";

const withAction = {
  type: "object",
  properties: { action: { type: "string", enum: ["list", "get", "create"] }, id: { type: "string" } },
};
const plain = { type: "object", properties: { text: { type: "string" } } };

describe("toolDefinitionHash", () => {
  it("ignores key order and changes with the description or the schema", () => {
    const a = toolDefinitionHash({
      name: "t",
      description: "d",
      inputSchema: { type: "object", properties: { x: {} } },
    });
    const b = toolDefinitionHash({
      name: "t",
      description: "d",
      inputSchema: { properties: { x: {} }, type: "object" },
    });
    expect(a).toBe(b);
    expect(a).toMatch(/^sha256:[0-9a-f]{64}$/);
    expect(toolDefinitionHash({ name: "t", description: "d2", inputSchema: { type: "object" } })).not.toBe(
      toolDefinitionHash({ name: "t", description: "d", inputSchema: { type: "object" } }),
    );
    expect(toolDefinitionHash({ name: "u", description: "d", inputSchema: { type: "object" } })).not.toBe(
      toolDefinitionHash({ name: "t", description: "d", inputSchema: { type: "object" } }),
    );
  });

  it("writes canonical JSON", () => {
    expect(canonicalJson({ b: [1, { d: 1, c: 2 }], a: "x", u: undefined })).toBe('{"a":"x","b":[1,{"c":2,"d":1}]}');
  });
});

describe("pinState", () => {
  it.each([
    ["h", null, "new"],
    ["h", "h", "approved"],
    ["h", "g", "changed"],
  ] as const)("%s pinned at %s is %s", (hash, approved, state) => expect(pinState(hash, approved)).toBe(state));
});

describe("actionValues", () => {
  it.each([
    [withAction, ["list", "get", "create"]],
    [plain, null],
    [{ type: "object" }, null],
    [{ properties: { action: { oneOf: [{ const: "a" }, { const: "b" }] } } }, ["a", "b"]],
    [{ properties: { action: { anyOf: [{ const: "a" }, { type: "string" }] } } }, null],
    [{ properties: { action: { const: "only" } } }, ["only"]],
    [{ properties: { action: { type: "string" } } }, null],
  ])("%j gives %j", (schema, values) => expect(actionValues(schema)).toEqual(values));
});

describe("planSafeProblem", () => {
  it("takes exact action values, or * for a tool without them", () => {
    expect(planSafeProblem(withAction, ["list", "get"])).toBeNull();
    expect(planSafeProblem(withAction, [])).toBeNull();
    expect(planSafeProblem(plain, ["*"])).toBeNull();
  });
  it.each([
    [withAction, ["List"], /"List" is not an action of this tool; its actions are "list", "get", "create"/],
    [withAction, ["*"], /"\*" is not an action/],
    [withAction, ["get", "get"], /twice/],
    [plain, ["read"], /no "action" argument/],
  ])("refuses %j with %j", (schema, list, message) => expect(planSafeProblem(schema, list)).toMatch(message));
});

describe("planAllows", () => {
  it.each([
    [["*"], { anything: 1 }, true],
    [["*"], undefined, true],
    [[], { action: "list" }, false],
    [["list"], { action: "list" }, true],
    [["list"], { action: "create" }, false],
    [["list"], { action: "LIST" }, false],
    [["list"], {}, false],
    [["list"], { action: ["list"] }, false],
  ])("%j with %j → %s", (list, args, allowed) => expect(planAllows(list, args)).toBe(allowed));

  it("annotates the description with the allowed actions", () => {
    expect(planDescription("Issues.", ["list", "get"])).toBe(
      'Issues.\n\n[Plan mode: only action "list", "get" are allowed.]',
    );
    expect(planDescription("Echo.", ["*"])).toBe("Echo.");
  });
});

describe("nameTools", () => {
  it("prefixes with the slug and refuses a second tool mapping to the same name", () => {
    const { named, refused } = nameTools("gh", [
      { name: "get.user", inputSchema: {} },
      { name: "get_user", inputSchema: {} },
      { name: "list", inputSchema: {} },
      { name: "list", inputSchema: {} },
    ]);
    expect(named.map((n) => n.exposedName)).toEqual(["gh_get_user", "gh_list"]);
    expect(refused).toEqual([
      { name: "get_user", reason: 'its name maps to gh_get_user, as "get.user" does' },
      { name: "list", reason: "the server lists this tool twice" },
    ]);
  });

  it("prefixes a team's server's tools with the team's slug", () => {
    const { named } = nameTools("gh", [{ name: "list", inputSchema: {} }], "acme");
    expect(named.map((n) => n.exposedName)).toEqual(["acme_gh_list"]);
  });
});

describe("boundResult", () => {
  it("leaves a small result alone", () => {
    const result = { content: [{ type: "text", text: "hi" }] };
    expect(boundResult(result, 10)).toBe(result);
  });

  it("cuts text past the limit with a note and keeps binary blocks", () => {
    const image = { type: "image", data: "A".repeat(50), mimeType: "image/png" };
    const input: { content: { type: string; text?: string; [key: string]: unknown }[]; structuredContent?: unknown } = {
      content: [{ type: "text", text: "x".repeat(8) }, image, { type: "text", text: "y".repeat(8) }],
      structuredContent: { big: "z".repeat(100) },
    };
    const bounded = boundResult(input, 10);
    expect(bounded.content?.map((c) => c.type)).toEqual(["text", "image", "text", "text"]);
    expect(bounded.content?.[0]?.text).toBe("x".repeat(8));
    expect(bounded.content?.[1]).toBe(image);
    expect(bounded.content?.[2]?.text).toBe("yy");
    expect(bounded.content?.[3]?.text).toMatch(/Loadout cut this result.*structured content was dropped/);
    expect(bounded.structuredContent).toBeUndefined();
  });
});
