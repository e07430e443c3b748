import type { IncomingMessage, ServerResponse } from "node:http";
import { Readable } from "node:stream";
import { pipeline } from "node:stream/promises";
import type { ReadableStream as NodeReadableStream } from "node:stream/web";
import type { McpLaneParts } from "../app";
import { jsonRpcErrorBody } from "../errors";
import type { AppVariables } from "../http/env";
import { errorReply } from "../http/errors";
import { tooLarge } from "../http/middleware/json-body";
import type { ScopedExchange } from "../http/middleware/request-context";
import type { McpBody, McpContext, McpReply } from "../mcp/exchange";

/** `/mcp`, `/mcp/e/{endpoint}` and `/mcp/s/{ws}/{slug}`, spelled plainly (anything encoded goes to Hono). */
const MCP_PATH = /^\/mcp(?:\/e\/([\w.~-]+)|\/s\/([\w.~-]+)\/([\w.~-]+))?$/;

const GONE = "Client connection prematurely closed.";

/** A body declared at most this long is read as soon as the request arrives (see readEarly). */
const EARLY_BODY = 64 * 1024;

/**
 * The Node host's lane for MCP POSTs: the same endpoint, request scope and security headers as
 * the Hono app's, without the web Request and Response around them. On a warm proxied call,
 * building those (the headers object, the body read through a web stream, the answer converted
 * back to Node's) cost about half as much as Loadout's own work. The answers are Hono's; a
 * test holds the two to it. Returns false for a request it leaves to Hono.
 */
export function nodeMcpLane(parts: McpLaneParts): (req: IncomingMessage, res: ServerResponse) => boolean {
  return (req, res) => {
    if (req.method !== "POST") return false;
    const target = req.url ?? "";
    const queryAt = target.indexOf("?");
    const path = queryAt === -1 ? target : target.slice(0, queryAt);
    const match = MCP_PATH.exec(path);
    const host = req.headers.host;
    if (!match || !host) return false;
    const url = `${(req.socket as { encrypted?: boolean }).encrypted ? "https" : "http"}://${host}${target}`;
    // What Hono would refuse as a bad request, it answers itself. Only the Host can make it so:
    // the path matched plain characters, and a query is never refused.
    if (!hostParses(host)) return false;
    const exchange = new LaneExchange(req, res, url, path, queryAt === -1 ? "" : target.slice(queryAt + 1));
    exchange.readEarly();
    void exchange.answer(parts, match);
    return true;
  };
}

/** Hosts seen, by whether a URL with them parses: the same few on every request. */
const parsedHosts = new Map<string, boolean>();
function hostParses(host: string): boolean {
  let parses = parsedHosts.get(host);
  if (parses === undefined) {
    parses = URL.canParse(`http://${host}/`);
    // Any client can send any Host: the map is kept small.
    if (parsedHosts.size >= 256) parsedHosts.clear();
    parsedHosts.set(host, parses);
  }
  return parses;
}

/** The request as the endpoint reads it (Hono's `c.req` gives the same). */
class LaneRequest {
  readonly method = "POST";
  private params: URLSearchParams | undefined;
  /** Whether a header name came more than once (Node's own headers object keeps some only once). */
  private repeats: boolean | undefined;

  constructor(
    private readonly incoming: IncomingMessage,
    readonly url: string,
    readonly path: string,
    private readonly search: string,
  ) {}

  /**
   * As web Headers read them: repeated headers joined with ", ". Node's headers object (built for
   * every request anyway) says the same when no name repeats, which is nearly always; otherwise
   * its `headersDistinct`, a second copy of every header, is read.
   */
  header(name: string): string | undefined {
    const lower = name.toLowerCase();
    const incoming = this.incoming;
    this.repeats ??= Object.keys(incoming.headers).length * 2 !== incoming.rawHeaders.length;
    if (this.repeats) return incoming.headersDistinct[lower]?.join(", ");
    const value = incoming.headers[lower];
    return typeof value === "string" || value === undefined ? value : value.join(", ");
  }

  query(name: string): string | undefined {
    if (this.search === "") return undefined;
    this.params ??= new URLSearchParams(this.search);
    return this.params.get(name) ?? undefined;
  }
}

/**
 * One request on the lane: what the endpoint (McpContext, McpBody) and the request scope
 * (ScopedExchange) read and set, kept on one object. Methods rather than closures: a request
 * builds no functions of its own (under tsx each would also be named at run time).
 */
class LaneExchange implements McpContext, McpBody, ScopedExchange {
  readonly req: LaneRequest;
  private readonly vars = {} as AppVariables;
  private readonly finals: Record<string, string> = {};
  private reply: McpReply | undefined;
  private bytes: Promise<Buffer> | undefined;
  private bodyRead: Buffer | undefined;
  private controller: AbortController | undefined;
  private goneListeners: (() => void)[] | undefined;
  private closedEarly = false;
  private finish: (() => void) | undefined;

  constructor(
    private readonly incoming: IncomingMessage,
    private readonly res: ServerResponse,
    url: string,
    path: string,
    query: string,
  ) {
    this.req = new LaneRequest(incoming, url, path, query);
    res.once("close", () => {
      if (res.writableFinished) return;
      this.closedEarly = true;
      this.controller?.abort(new Error(GONE));
      for (const listener of this.goneListeners ?? []) listener();
    });
  }

  get<K extends keyof AppVariables>(key: K): AppVariables[K] {
    return this.vars[key];
  }

  set<K extends keyof AppVariables>(key: K, value: AppVariables[K]): void {
    this.vars[key] = value;
  }

  status(): number {
    return this.reply ? this.reply.status : 500;
  }

  finalHeader(name: string, value: string): void {
    this.finals[name.toLowerCase()] = value;
  }

  afterAnswer(work: () => void): void {
    this.finish = work;
  }

  /** The log line and deferred work the scope held back until the answer went (see afterAnswer). */
  private finished(): void {
    const finish = this.finish;
    this.finish = undefined;
    finish?.();
  }

  /**
   * Starts reading a small body (declared at most EARLY_BODY bytes, under any limit the endpoint
   * sets) at once, so that it arrives while the token is checked rather than after. A larger or
   * undeclared body waits for the endpoint, so that a request refused before then never has it
   * buffered. The endpoint's own read gets this one's outcome.
   */
  readEarly(): void {
    const declared = this.incoming.headers["content-length"];
    if (declared === undefined || !/^\d{1,6}$/.test(declared) || Number(declared) > EARLY_BODY) return;
    // Handled here so that a client gone before the endpoint reads is no unhandled rejection; the
    // endpoint's read still sees it.
    this.read(EARLY_BODY).catch(() => {});
  }

  async answer(parts: McpLaneParts, match: RegExpExecArray): Promise<void> {
    const [, endpointId, ws, slug] = match;
    try {
      await parts.scope(this, async () => {
        try {
          this.reply = await parts.serve({
            c: this,
            io: this,
            target: { endpointId: endpointId ?? null, single: ws && slug ? { ws, slug } : null },
          });
        } catch (error) {
          // In JSON-RPC, as Hono's onError answers on these paths: an MCP client reads no REST body.
          const failed = errorReply(error, this.vars.requestId, this.vars.deps?.logger);
          const payload = JSON.stringify(jsonRpcErrorBody(failed.error, this.vars.requestId));
          this.reply = {
            status: failed.status,
            headers: { "content-type": "application/json", ...failed.headers },
            payload,
          };
        }
      });
      await this.write(this.reply as McpReply, await parts.securityHeaders);
    } catch (error) {
      // Nothing more can be said to a client whose connection broke mid-answer.
      if (!this.res.headersSent) this.res.writeHead(500).end();
      else this.res.destroy(error as Error);
    } finally {
      this.finished();
    }
  }

  read(limit: number): Promise<Uint8Array> {
    this.bytes ??= new Promise<Buffer>((resolve, reject) => {
      const req = this.incoming;
      const declared = req.headers["content-length"];
      if (declared !== undefined && /^\d{1,15}$/.test(declared) && Number(declared) > limit)
        return reject(tooLarge(limit));
      const chunks: Buffer[] = [];
      let size = 0;
      // Settling twice is a no-op: whichever of these comes first decides.
      req.on("data", (chunk: Buffer) => {
        if (size > limit) return;
        size += chunk.byteLength;
        if (size > limit) {
          // The rest is never read: the answer closes the connection (tooLarge says so).
          req.pause();
          reject(tooLarge(limit));
        } else chunks.push(chunk);
      });
      req.once("end", () => {
        if (size > limit) return;
        this.bodyRead = chunks.length === 1 ? (chunks[0] as Buffer) : Buffer.concat(chunks);
        resolve(this.bodyRead);
      });
      req.once("error", reject);
      // A request closes after every answer: only one closed unread is a client gone.
      req.once("close", () => {
        if (!this.bodyRead) reject(new Error(GONE));
      });
    });
    return this.bytes;
  }

  signal(): AbortSignal {
    if (!this.controller) {
      this.controller = new AbortController();
      if (this.closedEarly) this.controller.abort(new Error(GONE));
    }
    return this.controller.signal;
  }

  whenGone(listener: () => void): void {
    if (this.closedEarly) {
      listener();
      return;
    }
    this.goneListeners ??= [];
    this.goneListeners.push(listener);
  }

  web(): Request {
    const headers = new Headers();
    const raw = this.incoming.rawHeaders;
    for (let i = 0; i + 1 < raw.length; i += 2) headers.append(raw[i] as string, raw[i + 1] as string);
    const body = this.bodyRead ? new Uint8Array(this.bodyRead) : null;
    return new Request(this.req.url, { method: "POST", headers, body, signal: this.signal() });
  }

  /**
   * Writes the answer: its own headers, the security headers over them, and the scope's (request
   * id, timing) last, as Hono's middleware order gives them. The log line and deferred work follow
   * (see finished): they are not on the answer's path.
   */
  private async write(reply: McpReply, security: Record<string, string>) {
    const res = this.res;
    const secure = securityPairs(security);
    if ("payload" in reply) {
      const pairs: string[] = [];
      for (const name in reply.headers)
        if (this.keeps(name, secure, true)) pairs.push(name, reply.headers[name] as string);
      const all = this.withFinals(pairs, secure);
      all.push("content-length", String(Buffer.byteLength(reply.payload)));
      res.writeHead(reply.status, all);
      res.end(reply.payload);
      return;
    }
    // The SDK's answer: JSON, or an event stream passed on as it comes.
    const pairs: string[] = [];
    for (const [name, value] of reply.headers) if (this.keeps(name, secure, false)) pairs.push(name, value);
    res.writeHead(reply.status, this.withFinals(pairs, secure));
    if (!reply.body) {
      res.end();
      return;
    }
    res.flushHeaders();
    // A stream may run long: its log line and deferred work do not wait for its end.
    this.finished();
    await pipeline(Readable.fromWeb(reply.body as NodeReadableStream<Uint8Array>), res);
  }

  /** Whether an answer's own header is sent: not when a security header or the scope's sets it. */
  private keeps(name: string, secure: SecurityPairs, sized: boolean): boolean {
    const lower = name.toLowerCase();
    return !secure.names.has(lower) && !(lower in this.finals) && !(sized && lower === "content-length");
  }

  /** The answer's own pairs, then the security headers' and the scope's. */
  private withFinals(pairs: string[], secure: SecurityPairs): string[] {
    for (const pair of secure.pairs) pairs.push(pair);
    for (const name in this.finals) pairs.push(name, this.finals[name] as string);
    return pairs;
  }
}

/** The security headers as Node's writeHead takes them (name, value, name, value…), and their names. */
interface SecurityPairs {
  pairs: string[];
  names: Set<string>;
}

/**
 * Made once: the security headers are the same object on every answer. Answers are written with
 * flat name-value arrays, not merged objects, which at this many names cost several KB each.
 */
const madePairs = new WeakMap<Record<string, string>, SecurityPairs>();
function securityPairs(security: Record<string, string>): SecurityPairs {
  let made = madePairs.get(security);
  if (!made) {
    const pairs: string[] = [];
    for (const name in security) pairs.push(name, security[name] as string);
    made = { pairs, names: new Set(Object.keys(security).map((name) => name.toLowerCase())) };
    madePairs.set(security, made);
  }
  return made;
}
