import type { IncomingMessage, ServerResponse } from "node:http";
import type { McpLaneParts } from "../app";
import { jsonRpcErrorBody } from "../errors";
import type { AppVariables } from "../http/env";
import { errorReply } from "../http/errors";
import type { ScopedExchange } from "../http/middleware/request-context";
import type { McpContext, McpReply } from "../mcp/exchange";
import { writeReply } from "./node-answer";
import { NodeBody } from "./node-body";

/** `/mcp`, `/mcp/e/{endpoint}` and `/mcp/s/{ws}/{slug}`, spelled plainly (anything encoded goes to Hono). */
const MCP_PATH = /^\/mcp(?:\/e\/([\w.~-]+)|\/s\/([\w.~-]+)\/([\w.~-]+))?$/;

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
    exchange.body.readEarly();
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
 * One request on the lane: what the endpoint (McpContext) and the request scope (ScopedExchange)
 * read and set, kept on one object; its body is a NodeBody (node-body.ts), its answer written by
 * writeReply (node-answer.ts).
 */
class LaneExchange implements McpContext, ScopedExchange {
  readonly req: LaneRequest;
  readonly body: NodeBody;
  private readonly vars = {} as AppVariables;
  private readonly finals: Record<string, string> = {};
  private reply: McpReply | undefined;
  private finish: (() => void) | undefined;

  constructor(
    incoming: IncomingMessage,
    private readonly res: ServerResponse,
    url: string,
    path: string,
    query: string,
  ) {
    this.req = new LaneRequest(incoming, url, path, query);
    this.body = new NodeBody(incoming, res, url);
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
  private readonly finished = (): void => {
    const finish = this.finish;
    this.finish = undefined;
    finish?.();
  };

  async answer(parts: McpLaneParts, match: RegExpExecArray): Promise<void> {
    const [, endpointId, ws, slug] = match;
    try {
      await parts.scope(this, async () => {
        try {
          this.reply = await parts.serve({
            c: this,
            io: this.body,
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
      // The log line and deferred work follow the answer (see finished): they are not on its path.
      await writeReply(this.res, this.reply as McpReply, await parts.securityHeaders, this.finals, this.finished);
    } catch (error) {
      // Nothing more can be said to a client whose connection broke mid-answer.
      if (!this.res.headersSent) this.res.writeHead(500).end();
      else this.res.destroy(error as Error);
    } finally {
      this.finished();
    }
  }
}
