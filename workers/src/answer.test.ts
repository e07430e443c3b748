import { describe, expect, it } from "vitest";
import { readAnswer, type ServerRequest, SseEvents } from "./direct-answer";

/** The answer with this id in a whole body, read as a direct call reads it. */
const answerOf = (raw: string, contentType: string, id: string | number) =>
  readAnswer(
    (async function* () {
      yield new TextEncoder().encode(raw);
    })(),
    contentType,
    id,
    () => {},
  );

describe("a whole answer (the direct call's reading of an upstream's answer)", () => {
  it("reads a JSON answer with the call's id", async () => {
    const raw = JSON.stringify({ jsonrpc: "2.0", id: 3, result: { content: [], resultType: "complete" } });
    expect(await answerOf(raw, "application/json", 3)).toEqual({ result: { content: [], resultType: "complete" } });
  });

  it("reads a JSON-RPC error", async () => {
    const raw = JSON.stringify({ jsonrpc: "2.0", id: 3, error: { code: -32602, message: "bad" } });
    expect(await answerOf(raw, "application/json; charset=utf-8", 3)).toEqual({
      error: { code: -32602, message: "bad" },
    });
  });

  it("finds the answer among an SSE stream's events, past notifications and keep-alives", async () => {
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
    expect(await answerOf(raw, "text/event-stream", 9)).toEqual({
      result: { content: [{ type: "text", text: "done" }] },
    });
  });

  it("joins an event's data lines", async () => {
    const raw = `data: {"jsonrpc":"2.0",\ndata: "id":1,"result":{}}\n\n`;
    expect(await answerOf(raw, "text/event-stream", 1)).toEqual({ result: {} });
  });

  it("reads a message after white space, past a priming event's empty data, and no array or scalar", async () => {
    const answer = JSON.stringify({ jsonrpc: "2.0", id: 4, result: { ok: true } });
    expect(await answerOf(`\r\n\t ${answer}\n`, "application/json", 4)).toEqual({ result: { ok: true } });
    expect(await answerOf(`id: a\ndata: \n\nid: b\ndata:  ${answer}\n\n`, "text/event-stream", 4)).toEqual({
      result: { ok: true },
    });
    expect(await answerOf(`[${answer}]`, "application/json", 4)).toBeNull();
    expect(await answerOf('"{}"', "application/json", 4)).toBeNull();
  });

  it("is null for garbage, another id, or a message that is neither result nor error", async () => {
    expect(await answerOf("not json at all", "application/json", 1)).toBeNull();
    expect(await answerOf(JSON.stringify({ jsonrpc: "2.0", id: 2, result: {} }), "application/json", 1)).toBeNull();
    expect(await answerOf(JSON.stringify({ jsonrpc: "2.0", id: 1, result: [] }), "application/json", 1)).toBeNull();
    expect(await answerOf(JSON.stringify({ jsonrpc: "2.0", id: 1 }), "application/json", 1)).toBeNull();
    expect(await answerOf("", "text/event-stream", 1)).toBeNull();
  });
});

describe("readAnswer (reading as the answer arrives)", () => {
  const encode = (text: string) => new TextEncoder().encode(text);
  async function* chunks(parts: string[], thenHang = false) {
    for (const part of parts) yield encode(part);
    if (thenHang) await new Promise(() => {});
  }

  it("reads a JSON body split anywhere", async () => {
    const body = JSON.stringify({ jsonrpc: "2.0", id: "c1", result: { content: [] } });
    const parts = [body.slice(0, 7), body.slice(7, 20), body.slice(20)];
    expect(await readAnswer(chunks(parts), "application/json", "c1", () => {})).toEqual({ result: { content: [] } });
  });

  it("reads a JSON body whole where the body offers its text, and an SSE body by its chunks still", async () => {
    const json = JSON.stringify({ jsonrpc: "2.0", id: "t1", result: { content: [] } });
    const whole = Object.assign(chunks(["not what text() says"]), { text: async () => json });
    expect(await readAnswer(whole, "application/json", "t1", () => {})).toEqual({ result: { content: [] } });
    const event = `data: ${JSON.stringify({ jsonrpc: "2.0", id: "t2", result: {} })}\n\n`;
    const sse = Object.assign(chunks([event]), { text: async () => "not read for a stream" });
    expect(await readAnswer(sse, "text/event-stream", "t2", () => {})).toEqual({ result: {} });
  });

  it("answers as soon as the event arrives, though the server keeps the stream open, and cuts the rest later", async () => {
    const event = `data: ${JSON.stringify({ jsonrpc: "2.0", id: "c2", result: { content: [] } })}\n\n`;
    let cut = false;
    const answer = await readAnswer(
      chunks([": ping\n\n", event.slice(0, 10), event.slice(10)], true),
      "text/event-stream",
      "c2",
      () => {
        cut = true;
      },
      20,
    );
    expect(answer).toEqual({ result: { content: [] } });
    expect(cut).toBe(false);
    await new Promise((r) => setTimeout(r, 50));
    expect(cut).toBe(true);
  });

  it("takes a last event the stream ended without a blank line after", async () => {
    const last = `data: ${JSON.stringify({ jsonrpc: "2.0", id: "c3", error: { code: -1, message: "no" } })}`;
    expect(await readAnswer(chunks([last]), "text/event-stream", "c3", () => {})).toEqual({
      error: { code: -1, message: "no" },
    });
  });

  it("is null when the stream ends without the answer", async () => {
    expect(await readAnswer(chunks(["data: {}\n\n"]), "text/event-stream", "c4", () => {})).toBeNull();
  });
});

describe("SSE events split across many chunks", () => {
  it("finds a boundary split between chunks, and reads a 20 MB event of 320 pieces whole", async () => {
    const events = new SseEvents();
    expect(events.push("data: a\r\n")).toEqual([]);
    expect(events.push("\r")).toEqual([]);
    expect(events.push("\ndata: b\n\n")).toEqual(["a", "b"]);
    const big = new SseEvents();
    const chunk = "x".repeat(64 * 1024);
    expect(big.push("data: ")).toEqual([]);
    for (let i = 0; i < 320; i++) expect(big.push(chunk)).toEqual([]);
    expect(big.push("\n\n")[0]?.length).toBe(320 * 64 * 1024);
  });

  it("hands each server request on the stream to its listener before the answer, and nothing else", async () => {
    const event = (message: unknown) => `event: message\ndata: ${JSON.stringify(message)}\n\n`;
    const heard: ServerRequest[] = [];
    async function* chunks(parts: string[]) {
      for (const part of parts) yield new TextEncoder().encode(part);
    }
    const answer = await readAnswer(
      chunks([
        event({ jsonrpc: "2.0", method: "notifications/progress", params: { progress: 1 } }),
        event({ jsonrpc: "2.0", id: 0, method: "elicitation/create", params: { message: "Sure?" } }),
        event({ jsonrpc: "2.0", id: "other", result: {} }),
        event({ jsonrpc: "2.0", id: "s-1", method: "roots/list" }),
        // Not requests: no id, a null id, not JSON-RPC, not JSON.
        event({ jsonrpc: "2.0", method: "notifications/message", params: {} }),
        event({ jsonrpc: "2.0", id: null, method: "x" }),
        event({ id: 4, method: "x" }),
        "data: {not json\n\n",
        event({ jsonrpc: "2.0", id: 4, method: "sampling/createMessage" }),
        event({ jsonrpc: "2.0", id: "c9", result: { content: [] } }),
      ]),
      "text/event-stream",
      "c9",
      () => {},
      5_000,
      (request) => heard.push(request),
    );
    expect(answer).toEqual({ result: { content: [] } });
    expect(heard).toEqual([
      { id: 0, method: "elicitation/create" },
      { id: "s-1", method: "roots/list" },
      { id: 4, method: "sampling/createMessage" },
    ]);
  });
});
