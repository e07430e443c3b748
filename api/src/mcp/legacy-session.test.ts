import { hmac } from "@noble/hashes/hmac.js";
import { sha256 } from "@noble/hashes/sha2.js";
import { bytesToHex, utf8ToBytes } from "@noble/hashes/utils.js";
import { describe, expect, it } from "vitest";
import { askableCapabilities, legacySessions } from "./legacy-session";

const key = new Uint8Array(32).fill(7);
const other = new Uint8Array(32).fill(9);

describe("a 2025-era client's handshake in Loadout's session id", () => {
  it("round-trips the client's name, version and revision in visible ASCII", () => {
    const sessions = legacySessions(key);
    const id = sessions.encode({ name: "claude-code ✓", version: "2.1.0", protocolVersion: "2025-06-18" });
    expect(id).toMatch(/^[\x21-\x7e]+$/);
    expect(legacySessions(key).decode(id)).toEqual({
      name: "claude-code ✓",
      version: "2.1.0",
      protocolVersion: "2025-06-18",
    });
  });

  it("carries the capabilities a server may ask the client to use, bounded", () => {
    const sessions = legacySessions(key);
    const id = sessions.encode({
      name: "inspector",
      version: "1",
      protocolVersion: "2025-11-25",
      capabilities: { elicitation: { form: {} }, sampling: {} },
    });
    expect(sessions.decode(id)?.capabilities).toEqual({ elicitation: { form: {} }, sampling: {} });
    expect(askableCapabilities({ roots: { listChanged: true }, experimental: { x: {} }, sampling: "yes" })).toEqual({
      roots: { listChanged: true },
    });
    expect(askableCapabilities({ elicitation: { huge: "x".repeat(1000) } })).toEqual({ elicitation: {} });
    expect(askableCapabilities({})).toBeUndefined();
  });

  it("carries whether the client negotiated MCP Apps, with or without askable capabilities", () => {
    const sessions = legacySessions(key);
    const plain = sessions.encode({ name: "claude", version: "1", protocolVersion: "2025-11-25", apps: true });
    expect(sessions.decode(plain)).toEqual({ name: "claude", version: "1", protocolVersion: "2025-11-25", apps: true });
    const both = sessions.encode({
      name: "claude",
      version: "1",
      protocolVersion: "2025-11-25",
      capabilities: { sampling: {} },
      apps: true,
    });
    expect(sessions.decode(both)).toMatchObject({ capabilities: { sampling: {} }, apps: true });
    const none = sessions.encode({ name: "claude", version: "1", protocolVersion: "2025-11-25" });
    expect(sessions.decode(none)?.apps).toBeUndefined();
  });

  it("gives each handshake an id of its own, however alike the clients, and still reads an id made before", () => {
    const sessions = legacySessions(key);
    const handshake = { name: "cursor", version: "1.2.0", protocolVersion: "2025-11-25" };
    const one = sessions.encode(handshake);
    const two = sessions.encode(handshake);
    expect(one).not.toBe(two);
    expect(sessions.decode(one)).toEqual(handshake);
    expect(sessions.decode(two)).toEqual(handshake);
    // An id of the five-field form (before ids were drawn), signed with this key.
    const mac = (payload: string) => bytesToHex(hmac(sha256, key, utf8ToBytes(payload))).slice(0, 32);
    const payload = Buffer.from(JSON.stringify(["cursor", "1.2.0", "2025-11-25"])).toString("base64url");
    expect(sessions.decode(`lo1.${payload}.${mac(payload)}`)).toEqual(handshake);
  });

  it("refuses an id signed with another key, altered, or not Loadout's", () => {
    const id = legacySessions(other).encode({ name: "cursor", version: "1", protocolVersion: null });
    const sessions = legacySessions(key);
    expect(sessions.decode(id)).toBeNull();
    const own = sessions.encode({ name: "cursor", version: "1", protocolVersion: null });
    const [prefix, payload, mac] = own.split(".");
    const forged = `${prefix}.${Buffer.from(JSON.stringify(["vscode", "1", null])).toString("base64url")}.${mac}`;
    expect(sessions.decode(forged)).toBeNull();
    expect(sessions.decode(`${prefix}.${payload}.${"0".repeat(32)}`)).toBeNull();
    expect(sessions.decode("3f2a-some-upstream-session")).toBeNull();
    expect(sessions.decode("lo1.%%%.abc")).toBeNull();
  });
});
