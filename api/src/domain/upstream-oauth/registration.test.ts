import { describe, expect, it } from "vitest";
import { applicationTypeFor, chooseRegistration, clientMetadataDocument, metadataDocumentUrl } from "./registration";

describe("chooseRegistration", () => {
  const both = { client_id_metadata_document_supported: true, registration_endpoint: "https://as/register" };
  it("prefers pasted credentials, then the metadata document, then DCR", () => {
    expect(chooseRegistration({ pastedClientId: "abc", metadata: both, metadataDocumentUrl: "https://l/doc" })).toEqual(
      {
        kind: "pasted",
      },
    );
    expect(chooseRegistration({ pastedClientId: null, metadata: both, metadataDocumentUrl: "https://l/doc" })).toEqual({
      kind: "metadata-document",
      clientId: "https://l/doc",
    });
    expect(chooseRegistration({ pastedClientId: null, metadata: both, metadataDocumentUrl: null })).toEqual({
      kind: "dynamic",
      endpoint: "https://as/register",
    });
  });
  it("says what the server needs when nothing fits", () => {
    const choice = chooseRegistration({ pastedClientId: null, metadata: {}, metadataDocumentUrl: "https://l/doc" });
    expect(choice.kind).toBe("none");
    expect(choice.kind === "none" && choice.problem).toMatch(/paste its client ID/);
  });
});

describe("Loadout's client identity", () => {
  it("publishes an https document, or loopback http only where loopback upstreams are allowed", () => {
    expect(metadataDocumentUrl("https://loadout.example", false)).toBe(
      "https://loadout.example/oauth/client-metadata.json",
    );
    expect(metadataDocumentUrl("http://127.0.0.1:8787", false)).toBeNull();
    expect(metadataDocumentUrl("http://127.0.0.1:8787", true)).toBe("http://127.0.0.1:8787/oauth/client-metadata.json");
    expect(metadataDocumentUrl("http://loadout.internal", true)).toBeNull();
    expect(metadataDocumentUrl("http://localhost:8787", true)).toBeNull();
  });
  it("is a native app on a loopback callback, a web app otherwise", () => {
    expect(applicationTypeFor("http://127.0.0.1:8787/oauth/upstream/callback")).toBe("native");
    expect(applicationTypeFor("https://loadout.example/oauth/upstream/callback")).toBe("web");
    const doc = clientMetadataDocument("https://loadout.example");
    expect(doc.client_id).toBe("https://loadout.example/oauth/client-metadata.json");
    expect(doc.redirect_uris).toEqual(["https://loadout.example/oauth/upstream/callback"]);
    expect(doc.token_endpoint_auth_method).toBe("none");
  });
});
