import { describe, expect, it } from "vitest";
import { LOADOUT_VIEWS, SKILL_EDIT_VIEW_URI, SKILLS_VIEW_URI } from "./index";
import { VIEW_CSP } from "./shell";

/** What a view must never contain: a remote load, a network API, durable storage or a device. */
const FORBIDDEN: [string, RegExp][] = [
  ["a remote URL", /\bhttps?:\/\//i],
  ["a protocol-relative src or href", /\b(?:src|href)\s*=\s*["']?\/\//i],
  ["src=", /\bsrc\s*=/i],
  ["href=", /\bhref\s*=/i],
  ["fetch(", /\bfetch\s*\(/],
  ["XMLHttpRequest", /XMLHttpRequest/],
  ["WebSocket", /WebSocket/],
  ["EventSource", /EventSource/],
  ["sendBeacon", /sendBeacon/],
  ["localStorage", /localStorage/],
  ["sessionStorage", /sessionStorage/],
  ["indexedDB", /indexedDB/i],
  ["document.cookie", /document\.cookie/],
  ["navigator.mediaDevices", /mediaDevices/],
  ["geolocation", /geolocation/i],
  ["innerHTML", /innerHTML|outerHTML|insertAdjacentHTML|document\.write/],
  ["eval", /\beval\s*\(|new Function\s*\(/],
  ["@import", /@import/],
  ["url(", /url\(/],
];

describe("Loadout's MCP Apps views", () => {
  it("are the skills view and the edit view, named as resources", () => {
    expect(LOADOUT_VIEWS.map((v) => [v.uri, v.name])).toEqual([
      [SKILLS_VIEW_URI, "loadout_skills_view"],
      [SKILL_EDIT_VIEW_URI, "loadout_skill_edit_view"],
    ]);
    expect(SKILLS_VIEW_URI).toBe("ui://loadout/skills.html");
    expect(SKILL_EDIT_VIEW_URI).toBe("ui://loadout/skill-edit.html");
  });

  describe.each(LOADOUT_VIEWS.map((v) => [v.uri, v] as const))("%s", (_uri, view) => {
    it("is one HTML document within the 64 KiB budget", () => {
      expect(view.html.startsWith("<!doctype html>")).toBe(true);
      expect(new TextEncoder().encode(view.html).length).toBeLessThanOrEqual(64 * 1024);
      expect(view.html.match(/<script\b/g)).toHaveLength(1);
      expect(view.html.match(/<\/script>/g)).toHaveLength(1);
    });

    it("declares its CSP before any style or script", () => {
      const csp = view.html.indexOf(`<meta http-equiv="Content-Security-Policy" content="${VIEW_CSP}">`);
      expect(csp).toBeGreaterThan(0);
      expect(csp).toBeLessThan(view.html.indexOf("<style>"));
      expect(csp).toBeLessThan(view.html.indexOf("<script>"));
      expect(VIEW_CSP).toBe("default-src 'none'; script-src 'unsafe-inline'; style-src 'unsafe-inline'; img-src data:");
    });

    it.each(FORBIDDEN)("contains no %s", (_what, pattern) => {
      expect(view.html).not.toMatch(pattern);
    });

    it("does the Apps handshake itself, in the 2026-01-26 protocol", () => {
      for (const method of [
        "ui/initialize",
        "ui/notifications/initialized",
        "ui/notifications/tool-input",
        "ui/notifications/tool-input-partial",
        "ui/notifications/tool-result",
        "ui/notifications/tool-cancelled",
        "ui/notifications/host-context-changed",
        "ui/resource-teardown",
        "ui/notifications/size-changed",
      ])
        expect(view.html).toContain(`"${method}"`);
      expect(view.html).toContain('"2026-01-26"');
      expect(view.html).toContain("window.parent.postMessage");
    });

    it("shows a text fallback before any script runs", () => {
      expect(view.html).toMatch(/<p id="status"[^>]*>[^<]{20,}<\/p>/);
    });

    it("honours reduced motion and shows keyboard focus", () => {
      expect(view.html).toContain("prefers-reduced-motion:reduce");
      expect(view.html).toContain(":focus-visible");
      expect(view.html).toContain('name="viewport"');
    });

    it("is a script the browser can parse", () => {
      const script = view.html.slice(view.html.indexOf("<script>") + 8, view.html.indexOf("</script>"));
      expect(() => new Function(script)).not.toThrow();
    });
  });

  it("calls no tool but skills, and only with action get", () => {
    const skills = LOADOUT_VIEWS[0]?.html ?? "";
    const calls = [...skills.matchAll(/callTool\("([^"]+)"/g)].map((m) => m[1]);
    expect(calls).toEqual(["skills"]);
    expect(skills.match(/action: "[a-z_]+"/g)?.every((a) => a === 'action: "get"')).toBe(true);
    expect(LOADOUT_VIEWS[1]?.html).not.toMatch(/callTool\("/);
  });
});
