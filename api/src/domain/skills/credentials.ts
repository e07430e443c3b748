/**
 * Refuses content that looks like a credential: a skill is shared with every agent that loads
 * it, and its files are served to clients verbatim. Detection is secretlint's maintained
 * recommended preset plus the few kinds it misses (`credential-rules.ts`).
 */
import type { lintSource } from "@secretlint/core";
import { SUPPLEMENTARY_RULES } from "./credential-rules";

export interface CredentialFinding {
  path: string;
  line: number;
  /** What it looks like, for people: "GitHub token", "AWS access key id", "private key", "JWT", … */
  kind: string;
  /** Names the file, the line and the kind; never the secret itself. */
  message: string;
}

type SecretlintConfig = Parameters<typeof lintSource>[0]["options"]["config"];

const AWS_RULE = "@secretlint/secretlint-rule-aws";
const FILTER_COMMENTS_RULE = "@secretlint/secretlint-rule-filter-comments";

/**
 * The recommended preset's own rule list, registered one by one rather than as the preset: core
 * 13.1 ignores `disabled` for a rule configured inside a preset, and one rule must go.
 */
/** Loaded on the first scan, not at start: most processes never scan (about 1.6 MiB of heap). */
let secretlint: Promise<{ lint: typeof lintSource; config: SecretlintConfig }> | undefined;
function loadSecretlint() {
  secretlint ??= Promise.all([
    import("@secretlint/core"),
    import("@secretlint/secretlint-rule-preset-recommend"),
    import("@secretlint/profiler"),
  ]).then(([core, preset, profiler]) => {
    // secretlint's profiler (for its CLI's --profile) marks every rule on every file and keeps every
    // mark for the life of the process, scanning them all at each one: a 512-file import took 13 s,
    // and each later scan longer (58 s, then 134 s) while the marks piled up in memory. Off.
    profiler.secretLintProfiler.mark = () => {};
    return { lint: core.lintSource, config: configFor(preset.rules) };
  });
  return secretlint;
}

type PresetRules = Awaited<typeof import("@secretlint/secretlint-rule-preset-recommend")>["rules"];

const configFor = (recommendedRules: PresetRules): SecretlintConfig => ({
  rules: recommendedRules
    // Its `secretlint-disable` comments would let an uploader exempt their own content.
    .filter((rule) => rule.meta.id !== FILTER_COMMENTS_RULE)
    .map((rule) =>
      rule.meta.id === AWS_RULE
        ? {
            id: rule.meta.id,
            rule,
            // Access key ids (AKIA…/ASIA…) are off by default. The same switch turns on account-id
            // matching, but an account id is an identifier AWS documents as not secret.
            options: { enableIDScanRule: true },
            allowMessageIds: ["AWSAccountID"],
          }
        : { id: rule.meta.id, rule },
    ),
});

/** secretlint rule and message ids → what we call them. */
const KINDS: Record<string, string> = {
  "aws/AWSAccessKeyID": "AWS access key id",
  "aws/AWSSecretAccessKey": "AWS secret access key",
  "gcp/PrivateKeyJSON": "Google Cloud service account key",
  privatekey: "private key",
  npm: "npm token",
  basicauth: "password in a URL",
  "slack/IncomingWebhook": "Slack webhook URL",
  slack: "Slack token",
  sendgrid: "SendGrid API key",
  shopify: "Shopify token",
  stripe: "Stripe key",
  github: "GitHub token",
  gitlab: "GitLab token",
  grafana: "Grafana token",
  openai: "OpenAI API key",
  anthropic: "Anthropic API key",
  groq: "Groq API key",
  huggingface: "Hugging Face token",
  linear: "Linear API key",
  notion: "Notion token",
  "1password": "1Password secret",
  "database-connection-string": "database URL with a password",
  "hashicorp-vault": "HashiCorp Vault token",
  vercel: "Vercel token",
  databricks: "Databricks token",
  docker: "Docker access token",
  figma: "Figma token",
  cloudflare: "Cloudflare token",
  tailscale: "Tailscale key",
};

function kindOf(ruleId: string, messageId: string): string {
  const rule = ruleId.replace("@secretlint/secretlint-rule-", "");
  return KINDS[`${rule}/${messageId}`] ?? KINDS[rule] ?? `secret (${rule})`;
}

const article = (kind: string) => (/^(?:[aeiou]|npm)/i.test(kind) ? "an" : "a");

/** What to tell the user; the file and line travel beside it (`path`, `line`), not inside it. */
export function credentialMessage(kind: string): string {
  return (
    `This looks like ${article(kind)} ${kind}. Remove it: skills are shared with every agent ` +
    "that loads them; keep secrets in a server's headers instead."
  );
}

const utf8 = new TextDecoder("utf-8", { fatal: true });

/** The file as text, or `null` for binary content (not UTF-8, or containing NUL bytes). */
function asText(bytes: Uint8Array): string | null {
  if (bytes.includes(0)) return null;
  try {
    return utf8.decode(bytes);
  } catch {
    return null;
  }
}

/**
 * The extension secretlint's rules see. Never `.p12`: for that extension the GCP rule reads the
 * file from the server's own disk by its path, and these paths are the uploader's.
 */
export function secretlintExt(path: string): string {
  const name = path.slice(path.lastIndexOf("/") + 1);
  const dot = name.lastIndexOf(".");
  const ext = dot > 0 ? name.slice(dot).toLowerCase() : "";
  return ext === ".p12" ? "" : ext;
}

/** 1-based line of each offset; `\r\n` counts once because only `\n` is counted. */
function lineFinder(text: string): (offset: number) => number {
  const starts = [0];
  for (let i = text.indexOf("\n"); i !== -1; i = text.indexOf("\n", i + 1)) starts.push(i + 1);
  return (offset) => {
    let lo = 0;
    let hi = starts.length - 1;
    while (lo < hi) {
      const mid = (lo + hi + 1) >> 1;
      if ((starts[mid] ?? 0) <= offset) lo = mid;
      else hi = mid - 1;
    }
    return lo + 1;
  };
}

async function scanText(path: string, text: string): Promise<CredentialFinding[]> {
  const hits: { offset: number; kind: string }[] = [];
  const { lint, config } = await loadSecretlint();
  const result = await lint({
    source: { content: text, filePath: path, ext: secretlintExt(path), contentType: "text" },
    options: { config, maskSecrets: true, noPhysicFilePath: true },
  });
  for (const message of result.messages) {
    if (message.type === "message")
      hits.push({ offset: message.range[0], kind: kindOf(message.ruleId, message.messageId) });
  }
  for (const rule of SUPPLEMENTARY_RULES) {
    for (const match of text.matchAll(rule.pattern)) {
      if (rule.confirm && !rule.confirm(match[0])) continue;
      hits.push({ offset: match.index, kind: rule.kind });
    }
  }
  const lineOf = lineFinder(text);
  const findings = new Map<string, CredentialFinding>();
  for (const { offset, kind } of hits.sort((a, b) => a.offset - b.offset)) {
    const line = lineOf(offset);
    const key = `${line}\u0000${kind}`;
    if (!findings.has(key)) findings.set(key, { path, line, kind, message: credentialMessage(kind) });
  }
  return [...findings.values()];
}

/** Every credential-like string in the text files given, in file order, then line order. */
export async function findCredentials(files: { path: string; bytes: Uint8Array }[]): Promise<CredentialFinding[]> {
  const findings: CredentialFinding[] = [];
  for (const { path, bytes } of files) {
    const text = asText(bytes);
    if (text !== null) findings.push(...(await scanText(path, text)));
  }
  return findings;
}
