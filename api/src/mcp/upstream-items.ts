import { type McpServer, ProtocolError, ResourceTemplate, UriTemplate } from "@modelcontextprotocol/server";
import type { SessionItem } from "../services/mcp/session-items";
import { exposedUriOf } from "../services/mcp/session-items";

/** Sends one request to an item's upstream server (with every check of relayRequest) and returns its result. */
export type ItemRelay = (
  item: SessionItem,
  method: string,
  params: Record<string, unknown>,
  signal: AbortSignal,
) => Promise<Record<string, unknown>>;

const text = (value: unknown) => (typeof value === "string" ? value : undefined);

function metadataOf(item: SessionItem) {
  const d = item.row.definition;
  return {
    ...(text(d.title) ? { title: text(d.title) } : {}),
    ...(text(d.description) ? { description: text(d.description) } : {}),
    ...(text(d.mimeType) ? { mimeType: text(d.mimeType) } : {}),
  };
}

/** A read's contents with their URIs as clients at /mcp know them. */
function exposedContents(item: SessionItem, result: Record<string, unknown>) {
  const contents = Array.isArray(result.contents) ? (result.contents as Record<string, unknown>[]) : [];
  return {
    ...result,
    contents: contents.map((c) => (typeof c.uri === "string" ? { ...c, uri: exposedUriOf(item, c.uri) } : c)),
  } as never;
}

/**
 * Serves the session's upstream resources, templates and prompts at /mcp, beside Loadout's own
 * (`skill://` through the Skills extension): each under its exposed key (see domain/servers/items.ts),
 * mapped back by lookup to its server and upstream key, then relayed. Resources and templates are
 * registered with the SDK's server, which lists, matches and reads them with Loadout's own; prompts
 * and completions (Loadout has none of its own) are answered by handlers here.
 */
export function attachUpstreamItems(server: McpServer, items: SessionItem[], relay: ItemRelay): void {
  const names = new Set<string>();
  const unique = (item: SessionItem) => {
    const base = `${item.team ? `${item.team}_` : ""}${item.server.slug}_${text(item.row.definition.name) ?? item.row.key}`;
    let name = base;
    for (let i = 2; names.has(name); i++) name = `${base}_${i}`;
    names.add(name);
    return name;
  };
  const templates: SessionItem[] = [];
  const prompts: SessionItem[] = [];
  for (const item of items) {
    const { row } = item;
    if (row.kind === "resource")
      server.registerResource(unique(item), row.exposedKey, metadataOf(item), async (_uri, ctx) =>
        exposedContents(item, await relay(item, "resources/read", { uri: row.key }, ctx.mcpReq.signal)),
      );
    else if (row.kind === "template") {
      templates.push(item);
      const upstream = new UriTemplate(row.key);
      server.registerResource(
        unique(item),
        new ResourceTemplate(row.exposedKey, { list: undefined }),
        metadataOf(item),
        async (_uri, variables, ctx) =>
          exposedContents(
            item,
            await relay(item, "resources/read", { uri: upstream.expand(variables) }, ctx.mcpReq.signal),
          ),
      );
    } else prompts.push(item);
  }
  const low = server.server;
  const find = (list: SessionItem[], key: unknown, what: string) => {
    const found = list.find((i) => i.row.exposedKey === key);
    if (!found) throw new ProtocolError(-32602, `${what} ${JSON.stringify(key)} not found`);
    return found;
  };
  if (prompts.length) {
    low.registerCapabilities({ prompts: { listChanged: false } });
    low.setRequestHandler(
      "prompts/list",
      () =>
        ({
          prompts: prompts.map((item) => ({ ...item.row.definition, name: item.row.exposedKey })),
        }) as never,
    );
    low.setRequestHandler("prompts/get", async (request, ctx) => {
      const item = find(prompts, request.params.name, "Prompt");
      const { _meta: _, ...params } = request.params as Record<string, unknown>;
      return (await relay(item, "prompts/get", { ...params, name: item.row.key }, ctx.mcpReq.signal)) as never;
    });
  }
  if (prompts.length || templates.length) {
    low.registerCapabilities({ completions: {} });
    low.setRequestHandler("completion/complete", async (request, ctx) => {
      const { _meta: _, ...params } = request.params as Record<string, unknown>;
      const ref = request.params.ref as { type: string; name?: string; uri?: string };
      const item =
        ref.type === "ref/prompt" ? find(prompts, ref.name, "Prompt") : find(templates, ref.uri, "Resource template");
      const upstreamRef = ref.type === "ref/prompt" ? { ...ref, name: item.row.key } : { ...ref, uri: item.row.key };
      return (await relay(item, "completion/complete", { ...params, ref: upstreamRef }, ctx.mcpReq.signal)) as never;
    });
  }
}
