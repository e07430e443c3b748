/**
 * Reads what users paste to add remote MCP servers: an `mcpServers` document (Claude, Cursor,
 * Windsurf, Cline, Gemini CLI), VS Code's `servers`, Zed's `context_servers`, a bare map of
 * name to server, or one server object. A bad entry is reported with its reason and the rest
 * still import, because a fifteen-server paste with one typo should not be all-or-nothing.
 *
 * The JSON reader is our own: VS Code and Zed configs are JSONC (comments, trailing commas),
 * `JSON.parse` silently keeps the last of two same-named servers, and its error positions
 * differ between engines. Objects keep their entries in order, duplicates included.
 */
import { type Json, JsoncError, JsoncReader, JsonObject } from "./jsonc";

export interface ImportedServer {
  name: string;
  url: string;
  transport: "streamable-http" | "sse";
  headers: Record<string, string>;
  enabled: boolean;
  /** Header values (or parts of them) the user still has to fill in, e.g. `${input:github_token}`. */
  placeholders: { header: string; placeholder: string }[];
}
export interface SkippedServer {
  name: string;
  reason: string;
}
export interface McpImportResult {
  servers: ImportedServer[];
  skipped: SkippedServer[];
  /** Set when the whole paste failed (not JSON, TOML, no servers at all). */
  problem?: string;
}

export const MAX_SERVERS_PER_IMPORT = 32;
export const STDIO_REASON = "stdio servers cannot run in a hosted service";
export const LIMIT_REASON = `at most ${MAX_SERVERS_PER_IMPORT} servers per paste; import the rest separately`;
export const DUPLICATE_REASON = "duplicate name";

const EXAMPLE = '{"mcpServers": {"name": {"url": "https://…"}}}';
const EXPECTED = `Paste the "mcpServers" block from your client's config, such as ${EXAMPLE}.`;
const EXAMPLE_URL = '"https://mcp.example.com/mcp"';

export function parseMcpImport(text: string): McpImportResult {
  const source = stripFence(text);
  if (source.trim() === "") return failed(`The paste is empty. ${EXPECTED}`);
  if (/^(?:\s*#[^\n]*\n)*\s*\[mcp_servers/.test(source))
    return failed(`this looks like TOML; paste JSON, such as ${EXAMPLE}.`);
  if (looksLikeYaml(source))
    return failed(
      `This looks like YAML. Paste the JSON form of the same servers, such as ${EXAMPLE}: most clients document both, and a YAML-to-JSON converter gives it.`,
    );
  let doc: Json;
  try {
    doc = new JsoncReader(source).document();
  } catch (error) {
    if (error instanceof JsoncError) return failed(`Not valid JSON: ${error.message}. ${EXPECTED}`);
    throw error;
  }
  const found = findEntries(doc);
  if (typeof found === "string") return failed(`${found}. ${EXPECTED}`);
  if (found.length === 0) return failed(`Found no servers. ${EXPECTED}`);

  const servers: ImportedServer[] = [];
  const skipped: SkippedServer[] = [];
  // Names that differ only in case become the same server slug: report the clash within the paste.
  const seen = new Map<string, string>();
  for (const [rawName, value] of found) {
    const name = rawName.trim();
    const earlier = seen.get(name.toLowerCase());
    const read =
      name === ""
        ? 'the name is empty: give the server a name such as "github"'
        : earlier === name
          ? DUPLICATE_REASON
          : earlier !== undefined
            ? `${DUPLICATE_REASON}: "${earlier}" earlier in this paste differs only in case; rename one of them`
            : readServer(name, value);
    if (earlier === undefined) seen.set(name.toLowerCase(), name);
    if (typeof read === "string") skipped.push({ name, reason: read });
    else if (servers.length >= MAX_SERVERS_PER_IMPORT) skipped.push({ name, reason: LIMIT_REASON });
    else servers.push(read);
  }
  return { servers, skipped };
}

function failed(problem: string): McpImportResult {
  return { servers: [], skipped: [], problem };
}

/** Blanks a markdown code fence around the paste, keeping line and column numbers true. */
function stripFence(text: string): string {
  const open = /^\s*```[^\n]*/.exec(text);
  if (!open) return text;
  const body = " ".repeat(open[0].length) + text.slice(open[0].length);
  return body.replace(/```\s*$/, (fence) => " ".repeat(fence.length));
}

const CONTAINER_KEYS = ["mcpServers", "servers", "context_servers"];
/**
 * Keys under which whole client configs keep their servers beside other settings: opencode's and
 * VS Code's `mcp`, Continue's `mcp_servers`, Amp's `amp.mcpServers`.
 */
const WRAPPER_KEYS = ["mcp", "mcp_servers", "mcpservers", "amp.mcpServers"];

/** A YAML document rather than JSON: a first line `key:` (or `- item`) and no JSON punctuation at the start. */
function looksLikeYaml(source: string): boolean {
  const first = source.split("\n").find((line) => line.trim() !== "" && !/^\s*#/.test(line));
  if (first === undefined || /^\s*[{["]/.test(first)) return false;
  return /^\s*(?:-\s+)?[A-Za-z_$][\w.$-]*\s*:(?:\s|$)/.test(first) || /^\s*---\s*$/.test(first);
}
const SERVER_KEYS = ["url", "serverUrl", "httpUrl", "command", "type"];

function findEntries(doc: Json): (readonly [string, Json])[] | string {
  if (!(doc instanceof JsonObject)) return `Expected a JSON object, got ${describe(doc)}`;
  for (const key of CONTAINER_KEYS) {
    const block = doc.get(key);
    if (block === undefined) continue;
    if (block instanceof JsonObject) return block.entries;
    return `"${key}" must be an object mapping server names to servers, got ${describe(block)}`;
  }
  // VS Code user settings nest the block: {"mcp": {"servers": {…}}}.
  const mcp = doc.get("mcp");
  if (mcp instanceof JsonObject && mcp.get("servers") !== undefined) return findEntries(mcp);
  // A whole client config (opencode: {"$schema": …, "mcp": {"name": {"type": "remote", "url": …}}}).
  for (const key of WRAPPER_KEYS) {
    const block = doc.get(key);
    if (block instanceof JsonObject && block.entries.some(([, value]) => looksLikeServer(value))) return block.entries;
  }
  if (isSingleServer(doc)) return [[singleServerName(doc), doc]];
  // `$schema` and the like describe the file, never a server.
  const entries = doc.entries.filter(([key]) => !key.startsWith("$"));
  if (!entries.some(([, value]) => looksLikeServer(value))) {
    const holder = entries.find(
      ([, value]) => value instanceof JsonObject && value.entries.some(([, inner]) => looksLikeServer(inner)),
    );
    if (holder && holder[1] instanceof JsonObject) return holder[1].entries;
    if (!entries.some(([, value]) => value instanceof JsonObject)) return "Found no MCP servers in this JSON";
  }
  return entries;
}

function looksLikeServer(value: Json | undefined): boolean {
  return value instanceof JsonObject && [...SERVER_KEYS, "transport"].some((key) => value.get(key) !== undefined);
}

/** One server object rather than a map of them. A map may hold a server named "url", so look at the values. */
function isSingleServer(doc: JsonObject): boolean {
  if (SERVER_KEYS.some((key) => doc.get(key) !== undefined && !looksLikeServer(doc.get(key)))) return true;
  const transport = doc.get("transport");
  if (transport === undefined) return false;
  return (
    !looksLikeServer(transport) || !doc.entries.some(([key, value]) => key !== "transport" && looksLikeServer(value))
  );
}

function singleServerName(doc: JsonObject): string {
  const name = doc.get("name");
  if (typeof name === "string" && name.trim() !== "") return name;
  const transport = doc.get("transport");
  const url = ["httpUrl", "url", "serverUrl"].map((key) => doc.get(key)).find((value) => value !== undefined);
  const address = url ?? (transport instanceof JsonObject ? transport.get("url") : undefined);
  if (typeof address === "string" && URL.canParse(address.trim())) {
    const slug = new URL(address.trim()).hostname.replace(/[^a-z0-9]+/g, "-").replace(/^-+|-+$/g, "");
    if (slug !== "") return slug;
  }
  const command = doc.get("command");
  return typeof command === "string" && command.trim() !== "" ? command : "server";
}

const TRANSPORTS = new Map<string, ImportedServer["transport"] | "stdio">([
  ["http", "streamable-http"],
  ["streamablehttp", "streamable-http"],
  ["sse", "sse"],
  ["stdio", "stdio"],
  // opencode's spellings.
  ["remote", "streamable-http"],
  ["local", "stdio"],
]);

/** One entry, or the reason it cannot be imported (what is wrong and how to fix it). */
function readServer(name: string, value: Json): ImportedServer | string {
  if (!(value instanceof JsonObject))
    return `expected a server object such as {"url": ${EXAMPLE_URL}}, got ${describe(value)}`;
  const transportField = value.get("transport");
  const nested = transportField instanceof JsonObject ? transportField : undefined;
  const type = value.get("type") ?? (nested ? nested.get("type") : transportField);
  let kind: ImportedServer["transport"] | "stdio" | undefined;
  if (type !== undefined) {
    if (typeof type !== "string") return `"type" must be a string: "http" (streamable HTTP) or "sse"`;
    kind = TRANSPORTS.get(type.toLowerCase().replace(/[-_]/g, ""));
    if (kind === undefined) return `unknown type "${type}": use "http" (streamable HTTP) or "sse"`;
  }
  if (kind === "stdio") return STDIO_REASON;

  const field = ["httpUrl", "url", "serverUrl"].find((key) => value.get(key) !== undefined);
  const address = field ? value.get(field) : nested?.get("url");
  const label = field ?? "transport.url";
  if (address === undefined) {
    if (value.get("command") !== undefined) return STDIO_REASON;
    return `no "url": add the server's address, such as "url": ${EXAMPLE_URL}`;
  }
  if (typeof address !== "string") return `"${label}" must be a string such as ${EXAMPLE_URL}`;
  const url = address.trim();
  const marker = delimitedPlaceholders(url)[0];
  if (marker !== undefined)
    return `"${label}" contains the placeholder "${marker}": replace it with the server's address`;
  if (!URL.canParse(url))
    return `"${label}" is not a valid URL ("${url}"): use the full address, such as ${EXAMPLE_URL}`;
  const parsed = new URL(url);
  if (parsed.protocol !== "https:" && parsed.protocol !== "http:") {
    return `"${label}" must start with https:// (or http://), not ${parsed.protocol}//: use the server's HTTP address`;
  }

  // Header names are case-insensitive: a later spelling replaces an earlier one.
  const headerMap = new Map<string, [string, string]>();
  const requestInit = value.get("requestInit");
  const sources: [string, Json | undefined][] = [
    ["requestInit.headers", requestInit instanceof JsonObject ? requestInit.get("headers") : undefined],
    ["transport.headers", nested?.get("headers")],
    ["headers", value.get("headers")],
  ];
  for (const [where, source] of sources) {
    if (source === undefined) continue;
    if (!(source instanceof JsonObject)) return `"${where}" must be an object such as {"Authorization": "Bearer …"}`;
    for (const [rawKey, rawValue] of source.entries) {
      const key = rawKey.trim();
      if (!/^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/.test(key))
        return `header name "${rawKey}" is not valid: use letters, digits and "-"`;
      const text = typeof rawValue === "number" || typeof rawValue === "boolean" ? String(rawValue) : rawValue;
      if (typeof text !== "string") return `header "${key}" must be a string`;
      if (/[\r\n]/.test(text)) return `header "${key}" must be on one line`;
      headerMap.set(key.toLowerCase(), [key, text]);
    }
  }
  const headers = Object.fromEntries(headerMap.values());

  const placeholders = Object.entries(headers).flatMap(([header, headerValue]) =>
    placeholdersIn(headerValue).map((placeholder) => ({ header, placeholder })),
  );
  return {
    name,
    url,
    transport: kind ?? (field === "httpUrl" || !/\/sse\/?$/.test(parsed.pathname) ? "streamable-http" : "sse"),
    headers,
    enabled: value.get("disabled") !== true && value.get("enabled") !== false,
    placeholders,
  };
}

// `${env:X}`, `${X}`, `${input:id}`, `{{X}}`, `<your-token>`, and `$X` standing alone.
const DELIMITED = /\$\{[^{}\s]+\}|\{\{[^{}]+\}\}|<[^<>\r\n]+>|(?<!\S)\$[A-Za-z_][A-Za-z0-9_]*/g;
// Whole words: YOUR_API_KEY, your-api-key-here, sk_xxxxxxxx, GITHUB_TOKEN, "token".
const PLACEHOLDER_WORDS = [
  /x{4,}/i,
  /^your[_-]/i,
  /[_-]here$/i,
  /^(?:token|api[_-]?key|secret|password|changeme|replace[_-]?me)$/i,
  /^[A-Z0-9_]*_(?:KEY|TOKEN|SECRET|PAT|PASSWORD)$/,
];

function delimitedPlaceholders(value: string): string[] {
  return [...value.matchAll(DELIMITED)].map((match) => match[0]);
}

/** The parts of a header value to replace: `Bearer ${GITHUB_TOKEN}` → `${GITHUB_TOKEN}`, not the scheme. */
export function placeholdersIn(value: string): string[] {
  const words = value.replace(DELIMITED, " ").split(/\s+/);
  const bare = words.filter((word) => word !== "" && PLACEHOLDER_WORDS.some((pattern) => pattern.test(word)));
  return [...delimitedPlaceholders(value), ...bare];
}

function describe(value: Json): string {
  if (value === null) return "null";
  if (Array.isArray(value)) return "a list";
  if (value instanceof JsonObject) return "an object";
  return `a ${typeof value} (${JSON.stringify(value)})`;
}
