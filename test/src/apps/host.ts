/**
 * A small MCP Apps host for tests: ext-apps' own `AppBridge` and `PostMessageTransport`, bundled
 * for the browser with esbuild, in a page that loads a view in a sandboxed iframe. A loopback
 * `node:http` server serves the host page, the bundle and the view documents (each with the host's
 * default CSP, PROTOCOLS §4.2); the test drives the bridge through `HostPage`.
 */
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { build } from "esbuild";
import type { Page } from "playwright-core";

/** PROTOCOLS §4.2: what a host applies to a view whose resource declares no `csp`. */
export const HOST_DEFAULT_CSP =
  "default-src 'none'; script-src 'self' 'unsafe-inline'; style-src 'self' 'unsafe-inline'; img-src 'self' data:; media-src 'self' data:; connect-src 'none'";

export const BRIDGE_PATH = "/app-bridge.js";
export const HOST_PATH = "/host.html";
export const BARE_HOST_PATH = "/bare-host.html";

/** ext-apps' host side as one IIFE script, exposing `ExtApps.AppBridge` and `ExtApps.PostMessageTransport`. */
export async function bundleAppBridge(): Promise<string> {
  const here = path.dirname(fileURLToPath(import.meta.url));
  const result = await build({
    stdin: {
      contents: 'export { AppBridge, PostMessageTransport } from "@modelcontextprotocol/ext-apps/app-bridge";',
      resolveDir: here,
      loader: "js",
    },
    bundle: true,
    platform: "browser",
    format: "iife",
    globalName: "ExtApps",
    target: "es2022",
    write: false,
    logLevel: "silent",
  });
  const file = result.outputFiles[0];
  if (!file) throw new Error("esbuild produced no bundle of @modelcontextprotocol/ext-apps/app-bridge");
  return file.text;
}

/**
 * The host page's own script: `window.host.load(src, options)` makes the iframe, connects an
 * AppBridge to it over PostMessageTransport before the view loads, and records what the view does.
 * The view's `tools/call` goes to `window.forwardToolCall`, which the test exposes.
 */
const HOST_JS = `
window.host = {
  events: { initialized: 0, sizes: [], calls: [], logs: [] },
  bridge: null,
  async load(src, options) {
    const iframe = document.createElement("iframe");
    iframe.setAttribute("sandbox", "allow-scripts");
    iframe.title = "MCP App view";
    iframe.style.cssText = "width:" + (options.width || 640) + "px;height:900px;border:1px solid #888";
    document.body.appendChild(iframe);
    const capabilities = options.serverTools ? { serverTools: {}, logging: {} } : { logging: {} };
    const bridge = new ExtApps.AppBridge(null, { name: "loadout-test-host", version: "1.0.0" }, capabilities, {
      hostContext: options.hostContext,
    });
    const events = this.events;
    bridge.oninitialized = () => { events.initialized++; };
    bridge.onsizechange = (size) => { events.sizes.push(size); };
    bridge.onloggingmessage = (message) => { events.logs.push(message); };
    if (options.serverTools)
      bridge.oncalltool = async (params) => {
        events.calls.push(params);
        return window.forwardToolCall(params);
      };
    await bridge.connect(new ExtApps.PostMessageTransport(iframe.contentWindow, iframe.contentWindow));
    this.bridge = bridge;
    iframe.src = src;
  },
};
`;

function hostPage(withBridge: boolean): string {
  return [
    "<!doctype html>",
    '<html lang="en"><head><meta charset="utf-8"><title>Test host</title>',
    // No favicon request: the request log must hold only the page, the bundle and the view.
    '<link rel="icon" href="data:,">',
    "</head><body>",
    withBridge ? `<script src="${BRIDGE_PATH}"></script><script>${HOST_JS}</script>` : "",
    "</body></html>",
  ].join("\n");
}

export interface HostServer {
  url: string;
  /** The path each view document is served at, by its `ui://` URI. */
  viewPath(uri: string): string;
  close(): Promise<void>;
}

/** Serves the host pages, the bridge bundle and the views (by `ui://` URI) on a loopback port. */
export async function startHostServer(bundle: string, views: Map<string, string>): Promise<HostServer> {
  const paths = new Map([...views.keys()].map((uri) => [`/views/${uri.replace(/^ui:\/\//, "")}`, uri]));
  const server: Server = createServer((req, res) => {
    const url = new URL(req.url ?? "/", "http://127.0.0.1");
    const uri = paths.get(url.pathname);
    const view = uri ? views.get(uri) : undefined;
    if (url.pathname === HOST_PATH || url.pathname === BARE_HOST_PATH) {
      res.writeHead(200, { "content-type": "text/html; charset=utf-8" });
      res.end(hostPage(url.pathname === HOST_PATH));
    } else if (url.pathname === BRIDGE_PATH) {
      res.writeHead(200, { "content-type": "text/javascript; charset=utf-8" });
      res.end(bundle);
    } else if (view !== undefined) {
      res.writeHead(200, { "content-type": "text/html; charset=utf-8", "content-security-policy": HOST_DEFAULT_CSP });
      res.end(view);
    } else {
      res.writeHead(404, { "content-type": "text/plain" });
      res.end("not found");
    }
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    viewPath(uri) {
      const found = [...paths].find(([, u]) => u === uri)?.[0];
      if (!found) throw new Error(`no view served for ${uri}`);
      return found;
    },
    close: () => new Promise<void>((resolve, reject) => server.close((e) => (e ? reject(e) : resolve()))),
  };
}

/** What the host page records. */
export interface HostEvents {
  initialized: number;
  sizes: { width?: number; height?: number }[];
  calls: { name: string; arguments?: Record<string, unknown> }[];
  logs: unknown[];
}

export interface LoadOptions {
  hostContext?: Record<string, unknown>;
  /** Whether the host declares `serverTools` (and forwards the view's `tools/call`). */
  serverTools?: boolean;
  width?: number;
}

/** The window of the host page, as HOST_JS shapes it. */
interface HostWindow {
  host: {
    events: HostEvents;
    load(src: string, options: LoadOptions): Promise<void>;
    bridge: {
      sendToolInput(params: { arguments?: Record<string, unknown> }): Promise<void>;
      sendToolInputPartial(params: { arguments?: Record<string, unknown> }): Promise<void>;
      sendToolResult(params: unknown): Promise<void>;
      sendToolCancelled(params: { reason?: string }): Promise<void>;
      sendHostContextChange(params: Record<string, unknown>): Promise<void> | void;
      teardownResource(params: Record<string, never>): Promise<Record<string, unknown>>;
      getAppVersion(): { name: string; version: string } | undefined;
    };
  };
}

type Bridge = HostWindow["host"]["bridge"];

/** One host page in a Playwright page, driving one view through the AppBridge. */
export class HostPage {
  constructor(
    readonly page: Page,
    private readonly server: HostServer,
  ) {}

  /** Opens the host page and loads the view at `uri` in its sandboxed iframe. */
  async load(uri: string, options: LoadOptions = {}): Promise<void> {
    await this.page.goto(`${this.server.url}${HOST_PATH}`);
    const src = `${this.server.url}${this.server.viewPath(uri)}`;
    await this.page.evaluate(({ src, options }) => (window as unknown as HostWindow).host.load(src, options), {
      src,
      options,
    });
  }

  /** Opens a page that frames the view with no bridge at all: a host without the extension. */
  async loadBare(uri: string): Promise<void> {
    await this.page.goto(`${this.server.url}${BARE_HOST_PATH}`);
    const src = `${this.server.url}${this.server.viewPath(uri)}`;
    await this.page.evaluate((src) => {
      const iframe = document.createElement("iframe");
      iframe.setAttribute("sandbox", "allow-scripts");
      iframe.src = src;
      document.body.appendChild(iframe);
    }, src);
  }

  /** The view's frame, for locators. */
  get view() {
    return this.page.frameLocator("iframe");
  }

  events(): Promise<HostEvents> {
    return this.page.evaluate(() => (window as unknown as HostWindow).host.events);
  }

  appInfo(): Promise<{ name: string; version: string } | undefined> {
    return this.page.evaluate(() => (window as unknown as HostWindow).host.bridge.getAppVersion());
  }

  private call<K extends keyof Bridge>(method: K, params: unknown): Promise<unknown> {
    return this.page.evaluate(
      ({ method, params }) => {
        const bridge = (window as unknown as HostWindow).host.bridge as unknown as Record<
          string,
          (p: unknown) => unknown
        >;
        return bridge[method]?.(params);
      },
      { method: method as string, params },
    );
  }

  toolInput(args: Record<string, unknown>) {
    return this.call("sendToolInput", { arguments: args });
  }
  toolInputPartial(args: Record<string, unknown>) {
    return this.call("sendToolInputPartial", { arguments: args });
  }
  toolResult(result: unknown) {
    return this.call("sendToolResult", result);
  }
  toolCancelled(reason: string) {
    return this.call("sendToolCancelled", { reason });
  }
  hostContextChanged(context: Record<string, unknown>) {
    return this.call("sendHostContextChange", context);
  }
  teardown() {
    return this.call("teardownResource", {}) as Promise<Record<string, unknown>>;
  }
}
