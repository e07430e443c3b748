import { describe, expect, it } from "vitest";
import type { SecretBox } from "../../auth/secret-box";
import { headerAd, openedTarget, type ServerRow, safeMessage } from "./upstreams";

/** A box that counts its openings; "bad" fails to open. */
function countingBox() {
  const box = {
    keyId: "k1",
    opened: 0,
    seal: async (plaintext: string) => plaintext,
    open: async (sealed: string, associatedData: string) => {
      box.opened++;
      if (sealed === "bad") throw new Error("cannot open");
      return `${sealed}@${associatedData}`;
    },
  };
  return box satisfies SecretBox & { opened: number };
}

const row = (headers: Record<string, string>) =>
  ({
    id: "srv_1",
    generation: 3,
    slug: "tracker",
    url: "https://mcp.example/mcp",
    urlSealed: null,
    transport: "streamable-http",
    headers,
    callTimeoutMs: 30_000,
  }) as unknown as ServerRow;

describe("openedTarget", () => {
  it("opens a row's secrets once per row object, and again for a new row", async () => {
    const box = countingBox();
    const first = row({ Authorization: "sealed-1" });
    const target = await openedTarget(first, box);
    expect(target.headers).toEqual({ Authorization: `sealed-1@${headerAd("srv_1", "Authorization")}` });
    expect(await openedTarget(first, box)).toBe(target);
    expect(box.opened).toBe(1);
    await openedTarget(row({ Authorization: "sealed-2" }), box);
    expect(box.opened).toBe(2);
  });

  it("does not keep a failure to open", async () => {
    const box = countingBox();
    const broken = row({ Authorization: "bad" });
    await expect(openedTarget(broken, box)).rejects.toThrow("cannot open");
    await expect(openedTarget(broken, box)).rejects.toThrow("cannot open");
    expect(box.opened).toBe(2);
  });
});

describe("safeMessage", () => {
  it("scrubs a bearer from an error message with or without its scheme", () => {
    const target = {
      id: "srv_1",
      generation: 1,
      name: "tracker",
      url: "https://mcp.example/mcp",
      transport: "streamable-http" as const,
      headers: { authorization: "Bearer up_at_secret_token_value" },
      callTimeoutMs: 1000,
    };
    expect(safeMessage(new Error("refused Bearer up_at_secret_token_value"), target)).toBe("refused [secret]");
    expect(safeMessage(new Error("token up_at_secret_token_value is bad"), target)).toBe("token [secret] is bad");
  });
});
