import { describe, expect, it } from "vitest";
import { clientIdUrlProblem } from "./client-id-url";

describe("clientIdUrlProblem", () => {
  it("accepts an https URL with a path", () => {
    expect(clientIdUrlProblem("https://claude.ai/oauth/claude-code-client-metadata")).toBeNull();
    expect(clientIdUrlProblem("https://127.0.0.1:4443/client.json")).toBeNull();
  });

  it("refuses http, root paths, fragments, credentials, dot segments and non-canonical spellings", () => {
    expect(clientIdUrlProblem("http://app.example/client.json")).toMatch(/https/);
    expect(clientIdUrlProblem("https://app.example/")).toMatch(/path/);
    expect(clientIdUrlProblem("https://app.example")).toMatch(/path|canonical/);
    expect(clientIdUrlProblem("https://app.example/c.json#x")).toMatch(/fragment/);
    expect(clientIdUrlProblem("https://u:p@app.example/c.json")).toMatch(/credentials/);
    expect(clientIdUrlProblem("https://app.example/a/../c.json")).toMatch(/segments|canonical/);
    expect(clientIdUrlProblem("https://APP.example/c.json")).toMatch(/canonical/);
    expect(clientIdUrlProblem("nope")).toMatch(/valid URL/);
  });

  it("takes loopback http only where loopback upstreams are allowed", () => {
    expect(clientIdUrlProblem("http://127.0.0.1:8787/oauth/client-metadata.json")).toMatch(/https/);
    expect(clientIdUrlProblem("http://127.0.0.1:8787/oauth/client-metadata.json", true)).toBeNull();
    expect(clientIdUrlProblem("http://app.example/client.json", true)).toMatch(/https/);
  });
});
