import { describe, expect, it } from "vitest";
import { PendingAnswers } from "../services/mcp/pending-answers";
import { ASK_PREFIX, answersIn, legacyCallStream, legacyRequestParams } from "./legacy-input";

const id = `${ASK_PREFIX}1`;

describe("answersIn", () => {
  it("takes answers to Loadout's own requests, alone or in a batch", () => {
    const answer = { jsonrpc: "2.0", id, result: { action: "accept" } };
    expect(answersIn(answer)).toEqual([answer]);
    const declined = { jsonrpc: "2.0", id: `${ASK_PREFIX}2`, error: { code: -1, message: "no" } };
    expect(answersIn([answer, declined])).toHaveLength(2);
  });

  it("leaves everything else to the SDK", () => {
    for (const body of [
      { jsonrpc: "2.0", id: 1, result: {} },
      { jsonrpc: "2.0", id: "upstream-7", result: {} },
      { jsonrpc: "2.0", id, method: "tools/call" },
      { jsonrpc: "2.0", id },
      [
        { jsonrpc: "2.0", id, result: {} },
        { jsonrpc: "2.0", id: 3, result: {} },
      ],
      [],
      null,
      "text",
    ])
      expect(answersIn(body)).toBeNull();
  });
});

describe("legacyCallStream", () => {
  it("sends notifications and requests as they come, then the answer, as 2025 SSE events", async () => {
    const pending = new PendingAnswers();
    const response = legacyCallStream(pending, "owner", new AbortController().signal, async (stream) => {
      stream.notify({ method: "notifications/progress", params: { progressToken: 1, progress: 1 } });
      const asked = stream.ask("elicitation/create", { message: "Sure?" });
      await Promise.resolve();
      const sent = [...(pending as unknown as { waiting: Map<string, unknown> }).waiting.keys()][0] as string;
      pending.deliver("owner", { id: sent, result: { action: "accept" } });
      return JSON.stringify({ jsonrpc: "2.0", id: 1, result: { asked: await asked } });
    });
    expect(response.headers.get("content-type")).toBe("text/event-stream");
    const events = (await response.text())
      .split("\n\n")
      .filter(Boolean)
      .map((event) => JSON.parse(event.replace(/^event: message\ndata: /, "")));
    expect(events[0]).toMatchObject({ method: "notifications/progress" });
    expect(events[1]).toMatchObject({ method: "elicitation/create", params: { message: "Sure?" } });
    expect(String(events[1].id)).toMatch(new RegExp(`^${ASK_PREFIX}[0-9a-f-]{36}$`));
    expect(events[2]).toEqual({ jsonrpc: "2.0", id: 1, result: { asked: { action: "accept" } } });
  });
});

describe("legacyRequestParams", () => {
  it("gives a URL-mode elicitation the elicitationId 2025-11-25 requires, and leaves the rest as they are", () => {
    const url = { mode: "url", message: "Sign in", url: "https://loadout.example/servers/edit/?slug=x&ws=me" };
    const asked = legacyRequestParams("elicitation/create", url);
    expect(asked).toMatchObject(url);
    expect(typeof asked?.elicitationId).toBe("string");
    const named = { ...url, elicitationId: "e-1" };
    expect(legacyRequestParams("elicitation/create", named)).toBe(named);
    const form = { message: "Sure?", requestedSchema: { type: "object", properties: {} } };
    expect(legacyRequestParams("elicitation/create", form)).toBe(form);
    expect(legacyRequestParams("sampling/createMessage", undefined)).toBeUndefined();
  });
});
