import type { ServerEvent, ServerEventBus } from "@modelcontextprotocol/server";
import { describe, expect, it } from "vitest";
import { LEGACY_RETRY_MS, legacyListenStream } from "./legacy-listen";

/** A bus whose listeners the test can count and publish to. */
function testBus() {
  const listeners = new Set<(event: ServerEvent) => void>();
  const bus: ServerEventBus = {
    publish: (event) => {
      for (const listener of listeners) listener(event);
    },
    subscribe(listener) {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
  };
  return { bus, listeners };
}

const OPEN = `: open\nretry: ${LEGACY_RETRY_MS}\n\n`;

const decoder = new TextDecoder();
async function readUntil(reader: ReadableStreamDefaultReader<Uint8Array>, until: (text: string) => boolean) {
  let text = "";
  while (!until(text)) {
    const { value, done } = await reader.read();
    if (done) break;
    text += decoder.decode(value);
  }
  return text;
}

describe("legacyListenStream", () => {
  it("opens an event stream at once and tells each event as its 2025 notification", async () => {
    const { bus } = testBus();
    const response = legacyListenStream(bus);
    expect(response.status).toBe(200);
    expect(response.headers.get("content-type")).toBe("text/event-stream");
    const reader = (response.body as ReadableStream<Uint8Array>).getReader();
    expect(await readUntil(reader, (t) => t.includes("\n\n"))).toBe(OPEN);
    bus.publish({ kind: "tools_list_changed" });
    bus.publish({ kind: "resource_updated", uri: "memo://notes", params: { title: "Notes" } });
    const text = await readUntil(reader, (t) => t.includes("resources/updated") && t.includes("tools/list_changed"));
    // A resource update is told at once; a list change after its checks (see below).
    const messages = text
      .split("\n\n")
      .filter((event) => event.startsWith("event: message"))
      .map((event) => JSON.parse(event.slice(event.indexOf("data: ") + 6)))
      .sort((a, b) => a.method.localeCompare(b.method));
    expect(messages).toEqual([
      { jsonrpc: "2.0", method: "notifications/resources/updated", params: { title: "Notes", uri: "memo://notes" } },
      { jsonrpc: "2.0", method: "notifications/tools/list_changed" },
    ]);
    await reader.cancel();
  });

  it("tells only the events it accepts", async () => {
    const { bus } = testBus();
    const response = legacyListenStream(bus, { accept: (event) => event.kind !== "prompts_list_changed" });
    const reader = (response.body as ReadableStream<Uint8Array>).getReader();
    bus.publish({ kind: "prompts_list_changed" });
    bus.publish({ kind: "resources_list_changed" });
    const text = await readUntil(reader, (t) => t.includes("resources/list_changed"));
    expect(text).not.toContain("prompts");
    await reader.cancel();
  });

  it("keeps an idle stream alive with comments, and lets its listener go when the reader cancels", async () => {
    const { bus, listeners } = testBus();
    const response = legacyListenStream(bus, { keepAliveMs: 20 });
    const reader = (response.body as ReadableStream<Uint8Array>).getReader();
    expect(await readUntil(reader, (t) => t.includes(": keep-alive"))).toContain(": keep-alive\n\n");
    expect(listeners.size).toBe(1);
    await reader.cancel();
    expect(listeners.size).toBe(0);
  });

  it("ends after its longest life, so that its client opens it again, and lets its listener go", async () => {
    const { bus, listeners } = testBus();
    const response = legacyListenStream(bus, { maxMs: 50 });
    const reader = (response.body as ReadableStream<Uint8Array>).getReader();
    const text = await readUntil(reader, () => false);
    expect(text).toBe(OPEN);
    expect(listeners.size).toBe(0);
  });

  it("ends when the host begins to shut down", async () => {
    const { bus, listeners } = testBus();
    const closing = new AbortController();
    const response = legacyListenStream(bus, { endWhen: closing.signal });
    const reader = (response.body as ReadableStream<Uint8Array>).getReader();
    expect(await readUntil(reader, (t) => t.includes("\n\n"))).toBe(OPEN);
    closing.abort();
    expect(await reader.read()).toEqual({ done: true, value: undefined });
    expect(listeners.size).toBe(0);
  });

  it("asks once per batch of list changes whether its credentials hold, and ends without telling when they do not", async () => {
    const { bus, listeners } = testBus();
    let asked = 0;
    let allowed = true;
    const response = legacyListenStream(bus, {
      stillAllowed: async () => {
        asked++;
        return allowed;
      },
    });
    const reader = (response.body as ReadableStream<Uint8Array>).getReader();
    bus.publish({ kind: "tools_list_changed" });
    bus.publish({ kind: "prompts_list_changed" });
    expect(await readUntil(reader, (t) => t.includes("prompts/list_changed"))).toContain("tools/list_changed");
    expect(asked).toBe(1);
    // A resource update is not a change of the credentials: told without asking.
    bus.publish({ kind: "resource_updated", uri: "memo://a" });
    expect(await readUntil(reader, (t) => t.includes("resources/updated"))).toContain("memo://a");
    expect(asked).toBe(1);
    allowed = false;
    bus.publish({ kind: "tools_list_changed" });
    expect(await readUntil(reader, () => false)).toBe("");
    expect(listeners.size).toBe(0);
  });

  /** The events of a stream's text: each one's id (or null) and message (or null for a priming event). */
  const eventsOf = (text: string) =>
    text
      .split("\n\n")
      .filter((block) => /^(id|event|data):/m.test(block))
      .map((block) => {
        const id = /^id: (.*)$/m.exec(block)?.[1] ?? null;
        const data = /^data: (.*)$/m.exec(block)?.[1] ?? "";
        return { id, method: data.trim() ? (JSON.parse(data) as { method: string }).method : null };
      });
  const THREE = ["tools", "prompts", "resources"].map((list) => `notifications/${list}/list_changed`);

  it("primes a new stream with the cursor as its id, and gives each batch of list changes the cursor read after it", async () => {
    const { bus } = testBus();
    let cursor = "c1.a";
    const response = legacyListenStream(bus, { cursor: async () => cursor });
    const reader = (response.body as ReadableStream<Uint8Array>).getReader();
    expect(eventsOf(await readUntil(reader, (t) => t.includes("id: ")))).toEqual([{ id: "c1.a", method: null }]);
    cursor = "c1.b";
    for (const event of ["tools_list_changed", "prompts_list_changed", "resources_list_changed"] as const)
      bus.publish({ kind: event });
    const told = eventsOf(await readUntil(reader, (t) => t.includes("resources/list_changed")));
    // The batch's last event carries the cursor: a stream cut within it leaves the client before it.
    expect(told).toEqual([
      { id: null, method: THREE[0] },
      { id: null, method: THREE[1] },
      { id: "c1.b", method: THREE[2] },
    ]);
    await reader.cancel();
  });

  it("tells a client that resumes from another cursor that its lists changed, and one that resumes from this one nothing", async () => {
    const { bus } = testBus();
    const behind = legacyListenStream(bus, { cursor: async () => "c1.now", resumedFrom: "c1.then" });
    const reader = (behind.body as ReadableStream<Uint8Array>).getReader();
    expect(eventsOf(await readUntil(reader, (t) => t.includes("id: ")))).toEqual([
      { id: null, method: THREE[0] },
      { id: null, method: THREE[1] },
      { id: "c1.now", method: THREE[2] },
    ]);
    await reader.cancel();
    const current = legacyListenStream(bus, { cursor: async () => "c1.now", resumedFrom: "c1.now", maxMs: 100 });
    expect(eventsOf(await new Response(current.body).text())).toEqual([{ id: "c1.now", method: null }]);
  });

  it("without a cursor (the database away), sends no id and tells a resuming client that its lists changed", async () => {
    const { bus } = testBus();
    const failing = async () => {
      throw new Error("database away");
    };
    const fresh = legacyListenStream(bus, { cursor: failing, maxMs: 100 });
    expect(eventsOf(await new Response(fresh.body).text())).toEqual([]);
    const resumed = legacyListenStream(bus, { cursor: failing, resumedFrom: "c1.then", maxMs: 100 });
    expect(eventsOf(await new Response(resumed.body).text())).toEqual(THREE.map((method) => ({ id: null, method })));
  });

  it("gives a client of a revision before 2025-11-25 no retry field and no priming event, but ids on what it tells", async () => {
    const { bus } = testBus();
    const response = legacyListenStream(bus, { cursor: async () => "c1.a", primes: false });
    const reader = (response.body as ReadableStream<Uint8Array>).getReader();
    expect(await readUntil(reader, (t) => t.includes("\n\n"))).toBe(": open\n\n");
    for (const event of ["tools_list_changed", "prompts_list_changed", "resources_list_changed"] as const)
      bus.publish({ kind: event });
    const text = await readUntil(reader, (t) => t.includes("resources/list_changed"));
    expect(text).not.toContain("retry:");
    expect(eventsOf(text).at(-1)).toEqual({ id: "c1.a", method: THREE[2] });
    expect(eventsOf(text).filter((e) => e.method === null)).toEqual([]);
    await reader.cancel();
  });

  it("tells a change heard while the one before waits for its cursor together with it, once", async () => {
    const { bus } = testBus();
    let release!: () => void;
    const slow = new Promise<void>((resolve) => {
      release = resolve;
    });
    const response = legacyListenStream(bus, {
      cursor: async () => {
        await slow;
        return "c1.b";
      },
      primes: false,
      maxMs: 200,
    });
    const whole = new Response(response.body).text();
    for (let change = 0; change < 2; change++)
      for (const event of ["tools_list_changed", "prompts_list_changed", "resources_list_changed"] as const)
        bus.publish({ kind: event });
    release();
    expect(eventsOf(await whole).map((e) => e.method)).toEqual(THREE);
  });
});
