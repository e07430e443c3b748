import { describe, expect, it } from "vitest";
import { answerOf } from "./pool";

describe("answerOf (the direct call's reading of an upstream's answer)", () => {
  it("reads a JSON answer with the call's id", () => {
    const raw = JSON.stringify({ jsonrpc: "2.0", id: 3, result: { content: [], resultType: "complete" } });
    expect(answerOf(raw, "application/json", 3)).toEqual({ result: { content: [], resultType: "complete" } });
  });

  it("reads a JSON-RPC error", () => {
    const raw = JSON.stringify({ jsonrpc: "2.0", id: 3, error: { code: -32602, message: "bad" } });
    expect(answerOf(raw, "application/json; charset=utf-8", 3)).toEqual({ error: { code: -32602, message: "bad" } });
  });

  it("finds the answer among an SSE stream's events, past notifications and keep-alives", () => {
    const raw = [
      ": keep-alive",
      "",
      "event: message",
      `data: ${JSON.stringify({ jsonrpc: "2.0", method: "notifications/progress", params: { progress: 1 } })}`,
      "",
      "event: message",
      `data: ${JSON.stringify({ jsonrpc: "2.0", id: 9, result: { content: [{ type: "text", text: "done" }] } })}`,
      "",
      "",
    ].join("\r\n");
    expect(answerOf(raw, "text/event-stream", 9)).toEqual({ result: { content: [{ type: "text", text: "done" }] } });
  });

  it("joins an event's data lines", () => {
    const raw = `data: {"jsonrpc":"2.0",\ndata: "id":1,"result":{}}\n\n`;
    expect(answerOf(raw, "text/event-stream", 1)).toEqual({ result: {} });
  });

  it("is null for garbage, another id, or a message that is neither result nor error", () => {
    expect(answerOf("not json at all", "application/json", 1)).toBeNull();
    expect(answerOf(JSON.stringify({ jsonrpc: "2.0", id: 2, result: {} }), "application/json", 1)).toBeNull();
    expect(answerOf(JSON.stringify({ jsonrpc: "2.0", id: 1, result: [] }), "application/json", 1)).toBeNull();
    expect(answerOf(JSON.stringify({ jsonrpc: "2.0", id: 1 }), "application/json", 1)).toBeNull();
    expect(answerOf("", "text/event-stream", 1)).toBeNull();
  });
});
