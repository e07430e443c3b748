import { describe, expect, it } from "vitest";
import type { AppDeps } from "./env";
import { requestOrigin } from "./origin";

/** A request as requestOrigin reads it: its URL, its headers and the app's public URL. */
const source = (url: string, headers: Record<string, string> = {}, publicUrl?: string) => ({
  get: () => ({ publicUrl }) as unknown as AppDeps,
  req: { url, header: (name: string) => headers[name.toLowerCase()] },
});

describe("requestOrigin", () => {
  it("is the configured public URL's origin, whatever the request says", () => {
    const c = source("http://127.0.0.1:8787/mcp", { host: "127.0.0.1:8787" }, "https://loadout.example/base/path");
    expect(requestOrigin(c)).toBe("https://loadout.example");
    expect(requestOrigin(source("http://x/", {}, "https://other.example:8443/"))).toBe("https://other.example:8443");
    expect(requestOrigin(c)).toBe("https://loadout.example");
  });

  it("is the request's scheme and Host header without one", () => {
    expect(requestOrigin(source("http://127.0.0.1:8787/mcp?mode=plan", { host: "localhost:8787" }))).toBe(
      "http://localhost:8787",
    );
    expect(requestOrigin(source("HTTPS://a.example/mcp", { host: "a.example" }))).toBe("https://a.example");
  });

  it("takes the scheme from X-Forwarded-Proto, behind a proxy that ends TLS", () => {
    const c = source("http://10.0.0.5:8787/mcp", { host: "mcp.example", "x-forwarded-proto": "https" });
    expect(requestOrigin(c)).toBe("https://mcp.example");
  });

  it("falls back to the URL's host when no Host header came", () => {
    expect(requestOrigin(source("http://127.0.0.1:9000/mcp"))).toBe("http://127.0.0.1:9000");
  });
});
