import { describe, expect, it } from "vitest";
import { isSignedJwt } from "./credential-rules";
import { credentialMessage, findCredentials, secretlintExt } from "./credentials";

/*
 * Every secret below is fake and assembled from pieces at run time, so this file itself holds
 * nothing a repository scanner would flag. The characters come from a seeded generator: the
 * tests are repeatable, and the values look like real, high-entropy keys.
 */
let seed = 20_260_805;
const ALNUM = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789";
const UPPER = "ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789";
const DIGITS = "0123456789";
const B64URL = `${ALNUM}_-`;
const B64 = `${ALNUM}+/`;
function random(length: number, alphabet = ALNUM): string {
  let out = "";
  for (let i = 0; i < length; i++) {
    seed = (seed * 1_103_515_245 + 12_345) % 2_147_483_648;
    out += alphabet[seed % alphabet.length];
  }
  return out;
}
const base64url = (text: string) => btoa(text).replace(/\+/g, "-").replace(/\//g, "_").replace(/=+$/, "");
const pem = (label: string, body: string) =>
  [`-----BEGIN ${label}-----`, ...(body.match(/.{1,64}/g) ?? []), `-----END ${label}-----`].join("\n");
const jwt = (header: object) =>
  `${base64url(JSON.stringify(header))}.${base64url(JSON.stringify({ sub: "1234567890", iat: 1_700_000_000 }))}.${random(43, B64URL)}`;

const utf8 = (text: string) => new TextEncoder().encode(text);
const scan = (text: string, path = "SKILL.md") => findCredentials([{ path, bytes: utf8(text) }]);

const PRIVATE = "PRIVATE KEY";
const secrets: [kind: string, name: string, secret: string][] = [
  ["GitHub token", "classic personal access token", `gh${"p_"}${random(36)}`],
  ["GitHub token", "OAuth token", `gh${"o_"}${random(36)}`],
  ["GitHub token", "user-to-server token", `gh${"u_"}${random(36)}`],
  ["GitHub token", "server-to-server token", `gh${"s_"}${random(36)}`],
  ["GitHub token", "refresh token", `gh${"r_"}${random(36)}`],
  ["GitHub token", "fine-grained token", `github${"_pat_"}${random(22)}_${random(59)}`],
  ["OpenAI API key", "legacy key", `sk-${random(20)}${"T3Blbk"}FJ${random(20)}`],
  ["OpenAI API key", "project key", `sk-${"proj-"}${random(74, B64URL)}${"T3Blbk"}FJ${random(74, B64URL)}`],
  ["OpenAI API key", "project key without the marker", `sk-${"proj-"}${random(48)}`],
  ["OpenAI API key", "service-account key", `sk-${"svcacct-"}${random(156, B64URL)}`],
  ["Anthropic API key", "API key", `sk-${"ant-api03-"}${random(93, B64URL)}AA`],
  ["Anthropic API key", "admin key", `sk-${"ant-admin01-"}${random(93, B64URL)}AA`],
  ["Anthropic API key", "OAuth token", `sk-${"ant-oat01-"}${random(93, B64URL)}AA`],
  ["Slack token", "bot token", `xox${"b-"}${random(12, DIGITS)}-${random(13, DIGITS)}-${random(24)}`],
  [
    "Slack token",
    "user token",
    `xox${"p-"}${random(12, DIGITS)}-${random(12, DIGITS)}-${random(13, DIGITS)}-${random(32)}`,
  ],
  ["Slack token", "workspace token", `xox${"a-2-"}${random(12, DIGITS)}-${random(32)}`],
  ["Slack token", "refresh token", `xox${"r-"}${random(12, DIGITS)}-${random(32)}`],
  ["Slack token", "legacy session token", `xox${"s-"}${random(12, DIGITS)}-${random(12, DIGITS)}-${random(32)}`],
  [
    "Slack webhook URL",
    "incoming webhook",
    `https://hooks.slack.com/${"services"}/T${random(8, UPPER)}/B${random(8, UPPER)}/${random(24)}`,
  ],
  ["Stripe key", "live secret key", `sk${"_live_"}${random(24)}`],
  ["Stripe key", "live restricted key", `rk${"_live_"}51${random(97)}`],
  ["Stripe key", "test secret key", `sk${"_test_"}${random(24)}`],
  ["Cloudflare token", "user API token", `cf${"ut_"}${random(40)}${random(8, "0123456789abcdef")}`],
  ["Tailscale key", "auth key", `ts${"key-"}auth-${random(17)}-${random(32)}`],
  ["AWS access key id", "long-term key id", `AK${"IA"}${random(16, UPPER)}`],
  ["AWS access key id", "temporary key id", `AS${"IA"}${random(16, UPPER)}`],
  ["AWS secret access key", "in an env file", `AWS_SECRET_ACCESS_KEY=${random(40, B64)}`],
  ["AWS secret access key", "in a credentials file", `aws_secret_access_key = ${random(40, B64)}`],
  ["AWS secret access key", "in JSON", `"SecretAccessKey": "${random(40, B64)}"`],
  ["private key", "PKCS#8, full", pem(PRIVATE, `MII${random(1213, B64)}`)],
  ["private key", "RSA header alone", `-----BEGIN RSA ${PRIVATE}-----`],
  ["private key", "EC, short body", pem(`EC ${PRIVATE}`, `MHc${random(20, B64)}`)],
  ["private key", "DSA header alone", `-----BEGIN DSA ${PRIVATE}-----`],
  ["private key", "OpenSSH", pem(`OPENSSH ${PRIVATE}`, `b3BlbnNzaC1rZXktdjE${random(300, B64)}`)],
  ["private key", "encrypted PKCS#8", pem(`ENCRYPTED ${PRIVATE}`, `MIIFHDBOBgkqhkiG9w0BBQ0w${random(600, B64)}`)],
  ["private key", "PGP block", pem(`PGP ${PRIVATE} BLOCK`, `\nlQOYBF${random(600, B64)}`)],
  ["Google API key", "API key", `AI${"za"}Sy${random(33, B64URL)}`],
  ["JWT", "HS256", jwt({ alg: "HS256", typ: "JWT" })],
  ["JWT", "RS256 with a key id", jwt({ kid: "k1", alg: "RS256" })],
  ["database URL with a password", "PostgreSQL", `postgres://admin:${random(16)}@db.internal:5432/app`],
];

describe("findCredentials finds", () => {
  it.each(secrets)("%s: %s", async (kind, _name, secret) => {
    const findings = await scan(`# Setup\n\nSome text.\n${secret}\nMore text.\n`, "references/setup.md");
    expect(findings).toEqual([
      {
        path: "references/setup.md",
        line: 4,
        kind,
        message: expect.stringMatching(/^This looks like an? /),
      },
    ]);
    // The message must never carry the secret, nor a recognisable piece of it.
    const message = findings[0]?.message ?? "";
    expect(message).not.toContain(secret);
    expect(message).not.toContain(secret.slice(-12));
    expect(message).not.toContain(secret.split("\n")[0]?.slice(-12) ?? secret);
  });

  it("a secret inside a fenced code block", async () => {
    const token = `gh${"p_"}${random(36)}`;
    const findings = await scan(["# Use", "", "```bash", `export GITHUB_TOKEN=${token}`, "```", ""].join("\n"));
    expect(findings.map((f) => [f.line, f.kind])).toEqual([[4, "GitHub token"]]);
  });

  it("a service-account key file (secretlint's GCP rule)", async () => {
    const key = {
      type: "service_account",
      private_key_id: random(40, "0123456789abcdef"),
      private_key: `${pem(PRIVATE, `MII${random(1213, B64)}`)}\n`,
      client_email: "bot@project.iam.gserviceaccount.com",
    };
    const findings = await scan(JSON.stringify(key, null, 2), "assets/key.json");
    expect(findings.map((f) => f.kind)).toContain("Google Cloud service account key");
  });

  it("still refuses a secret behind a secretlint-disable comment", async () => {
    const token = `gh${"p_"}${random(36)}`;
    const text = `<!-- secretlint-disable -->\n${token}\n<!-- secretlint-enable -->\n${token} // secretlint-disable-line\n`;
    expect((await scan(text)).map((f) => f.line)).toEqual([2, 4]);
  });

  it("counts lines in CRLF files, and reports each line once per kind", async () => {
    const token = `gh${"p_"}${random(36)}`;
    const text = `line one\r\nline two\r\nA=${token} B=${token}\r\n\r\n${pem(PRIVATE, `MII${random(400, B64)}`)}\r\n`;
    expect((await scan(text)).map((f) => [f.line, f.kind])).toEqual([
      [3, "GitHub token"],
      [5, "private key"],
    ]);
  });

  it("reports findings of several files in file order, then line order", async () => {
    const google = `AI${"za"}${random(35, B64URL)}`;
    const stripe = `sk${"_live_"}${random(30)}`;
    const findings = await findCredentials([
      { path: "SKILL.md", bytes: utf8("# Clean\n") },
      { path: "scripts/run.py", bytes: utf8(`import os\nKEY = "${stripe}"\nMAPS = "${google}"\n`) },
      { path: "references/a.md", bytes: utf8(`\n\n\n\n${jwt({ alg: "ES256" })}\n`) },
    ]);
    expect(findings.map((f) => `${f.path}:${f.line}:${f.kind}`)).toEqual([
      "scripts/run.py:2:Stripe key",
      "scripts/run.py:3:Google API key",
      "references/a.md:5:JWT",
    ]);
  });

  it("a text file named .p12 is scanned as text, without reading anything from disk", async () => {
    expect(secretlintExt("certs/key.p12")).toBe("");
    expect(secretlintExt("certs/KEY.JSON")).toBe(".json");
    expect(secretlintExt("Makefile")).toBe("");
    expect(secretlintExt(".npmrc")).toBe("");
    const findings = await scan(`-----BEGIN ${PRIVATE}-----\n`, "certs/key.p12");
    expect(findings.map((f) => f.kind)).toEqual(["private key"]);
  });
});

describe("findCredentials passes", () => {
  it.each([
    [
      "Markdown with code blocks and the word password",
      [
        "---",
        "name: deploy",
        "description: Deploys the app. Use when the user asks to ship.",
        "---",
        "# Deploy",
        "",
        "Ask the user for their password; never store it.",
        "",
        "```bash",
        'export GITHUB_TOKEN="$GITHUB_TOKEN"',
        "curl -H 'Authorization: Bearer $TOKEN' https://api.example.com/v1/items",
        "password = os.environ['DB_PASSWORD']",
        "```",
      ].join("\n"),
    ],
    ["a UUID", "id: 3f2b8c1e-9a4d-4e7f-b6a1-0c5d2e8f9a17\n"],
    ["a sha256", "digest: sha256:e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855\n"],
    ["a git commit", "fixed in 4b825dc642cb6eb9a060e54bf8d69288fbee4904\n"],
    ["a base64 image", `![logo](data:image/png;base64,iVBORw0KGgoAAAANSUhEUgAA${random(2000, B64)}==)\n`],
    ["AWS's documented example key id, which secretlint allows", "aws_access_key_id = AKIAIOSFODNN7EXAMPLE\n"],
    ["an AWS account id, which is not a secret", "account_id: 1234-5678-9012\n"],
    ["a public key and a certificate", `-----BEGIN PUBLIC KEY-----\n${random(64, B64)}\n-----BEGIN CERTIFICATE-----\n`],
    ["an unsigned JWT", `${base64url('{"alg":"none"}')}.${base64url('{"sub":"x"}')}.\n`],
    ["a dotted version string", "requires example.Version.Check and e1234567890.x.y\n"],
    ["placeholders", "GITHUB_TOKEN=ghp_xxxxxxxx\nOPENAI_API_KEY=sk-proj-...\nSTRIPE=sk_live_...\n"],
    ["a database URL without a real password", "postgres://user:password@localhost:5432/db\n"],
    ["an empty file", ""],
  ])("%s", async (_name, text) => {
    expect(await scan(text)).toEqual([]);
  });

  it("skips binary files: NUL bytes or invalid UTF-8", async () => {
    const token = utf8(`gh${"p_"}${random(36)}`);
    const withNul = new Uint8Array([0x89, 0x50, 0x4e, 0x47, 0, ...token]);
    const invalidUtf8 = new Uint8Array([0xff, 0xfe, 0xfd, 0x0a, ...token]);
    expect(
      await findCredentials([
        { path: "assets/logo.png", bytes: withNul },
        { path: "assets/blob.bin", bytes: invalidUtf8 },
      ]),
    ).toEqual([]);
    // The same token as text is found, so the skip above is about the bytes, not the token.
    expect(await findCredentials([{ path: "a.txt", bytes: token }])).toHaveLength(1);
  });
});

describe("isSignedJwt", () => {
  it.each([
    [jwt({ alg: "HS256" }), true],
    [jwt({ alg: "none" }), false],
    [jwt({ alg: "NONE" }), false],
    [jwt({ typ: "JWT" }), false],
    [jwt({ alg: 256 }), false],
    [`${base64url("[1]")}.${base64url("{}")}.${random(20)}`, false],
    [`${base64url("not json")}.${base64url("{}")}.${random(20)}`, false],
    [`${base64url('{"alg":"HS256"}')}.${base64url("{}")}.`, false],
    ["a.b.c", false],
  ])("%s → %s", (token, signed) => {
    expect(isSignedJwt(token)).toBe(signed);
  });
});

describe("credentialMessage", () => {
  it("names the kind and says what to do", () => {
    expect(credentialMessage("GitHub token")).toBe(
      "This looks like a GitHub token. Remove it: skills are shared with every agent " +
        "that loads them; keep secrets in a server's headers instead.",
    );
    expect(credentialMessage("AWS access key id")).toContain("like an AWS access key id.");
    expect(credentialMessage("OpenAI API key")).toContain("like an OpenAI API key.");
  });
});

describe("scanning many files", () => {
  it("leaves no performance marks behind (secretlint's profiler is off), so scans do not slow down", async () => {
    const files = Array.from({ length: 40 }, (_, i) => ({
      path: `notes/${i}.md`,
      bytes: new TextEncoder().encode(`# Note ${i}\n\nNothing secret here.\n`),
    }));
    await findCredentials(files);
    const before = performance.getEntriesByType("mark").length;
    await findCredentials(files);
    expect(performance.getEntriesByType("mark").length).toBe(before);
  });
});
