/**
 * A readable API reference rendered from the OpenAPI document, on our own origin. Written here
 * because the usual viewers (Scalar, Redoc, Swagger UI) load scripts from a CDN or weigh
 * megabytes, and the reference must work offline and from the Worker.
 */
type Json = Record<string, unknown>;

const esc = (s: unknown) =>
  String(s ?? "").replace(
    /[&<>"']/g,
    (ch) => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" })[ch] ?? ch,
  );

/** Prose from the schemas, escaped, with its Markdown code spans (`like this`) shown as code. */
const prose = (s: unknown) => esc(s).replace(/`([^`\n]+)`/g, "<code>$1</code>");

function resolve(doc: Json, schema: unknown): Json {
  const s = (schema ?? {}) as Json;
  const ref = s.$ref;
  if (typeof ref === "string" && ref.startsWith("#/components/schemas/")) {
    const name = ref.slice("#/components/schemas/".length);
    const schemas = ((doc.components as Json | undefined)?.schemas ?? {}) as Json;
    return { ...(schemas[name] as Json), title: name };
  }
  return s;
}

function typeOf(doc: Json, schema: unknown): string {
  const s = resolve(doc, schema);
  if (Array.isArray(s.enum)) return s.enum.map((v) => JSON.stringify(v)).join(" | ");
  if (Array.isArray(s.anyOf)) return s.anyOf.map((x) => typeOf(doc, x)).join(" | ");
  if (s.type === "array") return `${typeOf(doc, s.items)}[]`;
  if (typeof s.title === "string" && s.type === "object") return s.title;
  if (Array.isArray(s.type)) return s.type.join(" | ");
  return String(s.type ?? "any");
}

function fieldsTable(doc: Json, schema: unknown): string {
  const s = resolve(doc, schema);
  const props = (s.properties ?? {}) as Json;
  const required = new Set((s.required as string[] | undefined) ?? []);
  const rows = Object.entries(props)
    .map(([name, prop]) => {
      const p = resolve(doc, prop);
      return `<tr><td><code>${esc(name)}</code>${required.has(name) ? "" : " <span class=opt>optional</span>"}</td><td><code>${esc(typeOf(doc, prop))}</code></td><td>${prose(p.description ?? "")}</td></tr>`;
    })
    .join("");
  return rows ? `<table><tr><th>field</th><th>type</th><th></th></tr>${rows}</table>` : "";
}

export function renderReference(doc: Json): string {
  const info = (doc.info ?? {}) as Json;
  const paths = (doc.paths ?? {}) as Record<string, Record<string, Json>>;
  const sections = Object.entries(paths)
    .flatMap(([path, methods]) =>
      Object.entries(methods).map(([method, op]) => {
        const security = (op.security as Array<Record<string, string[]>> | undefined) ?? [];
        const scopes = security.flatMap((s) => s.bearerAuth ?? []);
        const auth =
          security.length === 0
            ? "public"
            : scopes.length
              ? `token scope <code>${esc(scopes.join(", "))}</code> or console session`
              : "any token or console session";
        const params = ((op.parameters as Json[] | undefined) ?? [])
          .map(
            (p) =>
              `<li><code>${esc(p.name)}</code> (${esc(p.in)}) ${prose((p.schema as Json | undefined)?.description ?? p.description ?? "")}</li>`,
          )
          .join("");
        const body = (
          ((op.requestBody as Json | undefined)?.content as Json | undefined)?.["application/json"] as Json | undefined
        )?.schema;
        const responses = Object.entries((op.responses ?? {}) as Record<string, Json>)
          .map(([code, r]) => {
            const schema = ((r.content as Json | undefined)?.["application/json"] as Json | undefined)?.schema;
            return `<li><b>${esc(code)}</b> ${prose(r.description)}${schema ? ` <code>${esc(typeOf(doc, schema))}</code>` : ""}</li>`;
          })
          .join("");
        return `<section id="${esc(`${method}-${path}`)}"><h2><span class="m ${esc(method)}">${esc(method.toUpperCase())}</span> <code>${esc(path)}</code></h2>
<p>${prose(op.summary)}</p><p class=auth>Auth: ${auth}</p>
${params ? `<h3>Parameters</h3><ul>${params}</ul>` : ""}${body ? `<h3>Body</h3>${fieldsTable(doc, body)}` : ""}<h3>Responses</h3><ul>${responses}</ul></section>`;
      }),
    )
    .join("\n");
  return `<!doctype html><html lang=en><head><meta charset=utf-8><meta name=viewport content="width=device-width,initial-scale=1">
<title>${esc(info.title)} reference</title><style>
body{font:15px/1.5 system-ui,sans-serif;max-width:60rem;margin:2rem auto;padding:0 1rem;color:#1f2328}
code{font:13px ui-monospace,monospace;background:#f3f4f6;padding:1px 4px;border-radius:4px}
section{border-top:1px solid #e5e7eb;padding:.5rem 0}h2{font-size:1.05rem}h3{font-size:.9rem;margin:.6rem 0 .2rem}
.m{font:600 12px ui-monospace,monospace;padding:2px 6px;border-radius:4px;color:#fff;background:#6b7280}.get{background:#2563eb}.post{background:#16a34a}.delete{background:#dc2626}.patch,.put{background:#d97706}
table{border-collapse:collapse;font-size:14px}td,th{border-bottom:1px solid #eee;padding:3px 10px 3px 0;text-align:left;vertical-align:top}.opt{color:#6b7280;font-size:12px}.auth{color:#4b5563;font-size:14px}
@media(prefers-color-scheme:dark){body{background:#0d1117;color:#e6edf3}code{background:#161b22}section,td,th{border-color:#30363d}}
nav{font-size:14px;margin-bottom:1rem}
</style></head><body><nav><a href="/">← Back to the console</a></nav><h1>${esc(info.title)} <small>${esc(info.version)}</small></h1><p>${prose(info.description)}</p>
<p>Machine-readable: <a href="/v1/openapi.json">/v1/openapi.json</a>. Errors are <code>{"error":{"code","message","requestId","details?"}}</code>.</p>
${sections}</body></html>`;
}
