import { describe, expect, it } from "vitest";
import { decodeCursor, encodeCursor } from "./cursor";

describe("cursors", () => {
  it.each<Record<string, string | number>>([
    { name: "code-review" },
    { name: "日本語-ß", n: 3 },
    { id: "evt_01", at: 1_700_000_000_000 },
  ])("round-trips %j", (value) => {
    const cursor = encodeCursor(value);
    expect(cursor).toMatch(/^[A-Za-z0-9_-]+$/);
    expect(decodeCursor(cursor)).toEqual(value);
  });

  it.each(["", "not base64!", "W10", "bnVsbA", "x".repeat(3000), "e30x"])("refuses %s", (cursor) => {
    // W10 is "[]", bnVsbA is "null": valid JSON, wrong shape.
    expect(decodeCursor(cursor)).toBeNull();
  });
});
