import { describe, expect, it } from "vitest";
import { renderReference } from "./reference-page";

describe("renderReference", () => {
  const html = renderReference({
    info: { title: "Loadout API", version: "0.1.0", description: "Send `Authorization: Bearer lo_…` <always>." },
    paths: {
      "/v1/me": {
        get: {
          summary: "The caller, with `workspaces`",
          responses: { 200: { description: "Who you are; see `user.id`." } },
        },
      },
    },
  });

  it("leads back to the console", () => {
    expect(html).toContain('<nav><a href="/">← Back to the console</a></nav>');
  });

  it("shows Markdown code spans as code, and still escapes the rest", () => {
    expect(html).toContain("Send <code>Authorization: Bearer lo_…</code> &lt;always&gt;.");
    expect(html).toContain("The caller, with <code>workspaces</code>");
    expect(html).toContain("Who you are; see <code>user.id</code>.");
    expect(html).not.toContain("`");
  });
});
