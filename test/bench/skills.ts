/**
 * Skills figures (Postgres): the first page of a 10,000-item list (server time, from the
 * Server-Timing header), and importing a 512-file, 16 MiB archive (wall time, and the API
 * process's memory above idle, sampled from /proc while it works).
 */
import { readFileSync } from "node:fs";
import { BlobWriter, TextReader, ZipWriter } from "@zip.js/zip.js";
import postgres from "postgres";
import type { ServerProcess } from "./server-process";

export interface SkillsFigures {
  listP50: number;
  listP99: number;
  importMs: number;
  importRssMiB: number;
  archiveMiB: number;
}

const rssMiB = (pid: number) => {
  const status = readFileSync(`/proc/${pid}/status`, "utf8");
  return Number(/VmRSS:\s+(\d+)/.exec(status)?.[1] ?? 0) / 1024;
};

const percentile = (xs: number[], p: number) =>
  [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor(xs.length * p))] ?? 0;

/** Plain prose, different per file, that no credential rule mistakes for a secret. */
function prose(i: number, bytes: number): string {
  const words = [
    "agent",
    "skill",
    "review",
    "context",
    "project",
    "scope",
    "server",
    "tool",
    "version",
    "history",
    "digest",
    "manifest",
  ];
  let out = `# Reference ${i}\n\n`;
  let n = i;
  while (out.length < bytes) {
    n = (n * 1103515245 + 12345) % 2147483648;
    out += `${words[n % words.length]} `;
    if (n % 13 === 0) out += "\n";
  }
  return out.slice(0, bytes);
}

async function bigArchive(): Promise<Uint8Array> {
  const writer = new ZipWriter(new BlobWriter("application/zip"));
  await writer.add(
    "bulk/SKILL.md",
    new TextReader("---\nname: bulk\ndescription: A skill with 511 reference files.\n---\n\nSee references/.\n"),
  );
  for (let i = 0; i < 511; i++)
    await writer.add(`bulk/references/part-${String(i).padStart(3, "0")}.md`, new TextReader(prose(i, 32_700)));
  return new Uint8Array(await (await writer.close()).arrayBuffer());
}

export async function benchSkills(server: ServerProcess, databaseUrl: string, token: string): Promise<SkillsFigures> {
  const headers = { authorization: `Bearer ${token}` };
  const me = (await (await fetch(`${server.url}/v1/workspaces/me`, { headers })).json()) as { id: string };

  // 10,000 items straight into the table: the list reads only it.
  const sql = postgres(databaseUrl, { max: 1, onnotice: () => {} });
  await sql`
    insert into skills (id, workspace_id, kind, name, description, file_count, total_bytes)
    select 'skl_bench' || lpad(g::text, 6, '0'), ${me.id}, 'skill', 'skill-' || lpad(g::text, 5, '0'),
           'Bench skill number ' || g || ': reviews, drafts and checks things for the agent.', 1, 200
    from generate_series(1, 10000) g`;
  await sql`analyze skills`;
  await sql.end();

  const timings: number[] = [];
  for (let i = 0; i < 220; i++) {
    const res = await fetch(`${server.url}/v1/workspaces/me/skills?limit=50`, { headers });
    const body = (await res.json()) as { items: unknown[] };
    if (res.status !== 200 || body.items.length !== 50) throw new Error(`list answered ${res.status}`);
    const dur = Number(/dur=([\d.]+)/.exec(res.headers.get("server-timing") ?? "")?.[1]);
    if (i >= 20) timings.push(dur);
  }

  const archive = await bigArchive();
  const pid = server.child.pid ?? 0;
  await new Promise((r) => setTimeout(r, 500));
  const idle = rssMiB(pid);
  let peak = idle;
  const sampler = setInterval(() => {
    peak = Math.max(peak, rssMiB(pid));
  }, 10);
  const start = performance.now();
  const res = await fetch(`${server.url}/v1/workspaces/me/skills/import`, {
    method: "POST",
    headers: { ...headers, "content-type": "application/zip" },
    body: archive as Uint8Array<ArrayBuffer>,
  });
  const importMs = performance.now() - start;
  clearInterval(sampler);
  const body = (await res.json()) as { fileCount?: number; error?: unknown };
  if (res.status !== 201 || body.fileCount !== 512)
    throw new Error(`import answered ${res.status}: ${JSON.stringify(body).slice(0, 300)}`);
  return {
    listP50: percentile(timings, 0.5),
    listP99: percentile(timings, 0.99),
    importMs,
    importRssMiB: peak - idle,
    archiveMiB: archive.byteLength / 1024 / 1024,
  };
}
