import path from "node:path";
import { parseArgs } from "node:util";
import { ApiError, openSession, serverOrigin } from "./api";
import { CliError, forgetCredentials } from "./config";
import { login, loginWithToken } from "./login";
import { addMcp } from "./mcp/add";
import { MCP_CLIENTS } from "./mcp/entries";
import { pull } from "./skills/pull";
import { type PushOutcome, push } from "./skills/push";
import { listItems } from "./skills/remote";
import { LAYOUTS } from "./sync/layouts";
import { sync } from "./sync/run";

/**
 * Exit codes, for CI: 0 done; 1 done in part (a skill refused, a local edit kept is not a failure);
 * 2 the command was used wrongly; 3 not signed in, or the credentials were refused; 4 the server
 * could not be reached or answered unexpectedly.
 */
export const EXIT = { ok: 0, partial: 1, usage: 2, auth: 3, server: 4 } as const;

const USAGE = `loadout — your Loadout skills in git, in every client's folders, and on one MCP URL

Usage:
  loadout login [url] [--token lo_…] [--no-browser]   sign in (OAuth in the browser), or keep an API token
  loadout logout [url]
  loadout skills push <dir> [--workspace ws] [--dry-run]   publish a skill folder, or every one under <dir>
  loadout skills pull <name> [dir] [--workspace ws]        write an item's files into <dir>/<name>
  loadout skills list [--workspace ws] [--json]
  loadout sync [--project path] [--project-folders] [--clients a,b] [--force]
  loadout mcp add <client> [--project path | --global]     clients: ${MCP_CLIENTS.join(", ")}

Every command takes --url (or LOADOUT_URL) to name the server; LOADOUT_TOKEN is used instead of a
stored sign-in. Sync writes for ${LAYOUTS.map((l) => l.client).join(", ")} (the ones installed here).
`;

type Out = (line: string) => void;

export async function main(argv: string[], out: Out = console.log, err: Out = console.error): Promise<number> {
  try {
    return await run(argv, out);
  } catch (error) {
    if (error instanceof CliError) {
      err(`loadout: ${error.message}`);
      return error.exitCode;
    }
    if (error instanceof ApiError) {
      err(`loadout: ${error.message}`);
      for (const d of error.details) err(`  ${d.path}${d.line ? `:${d.line}` : ""}: ${d.message}`);
      return error.status === 403 ? EXIT.auth : error.status >= 500 ? EXIT.server : EXIT.partial;
    }
    if ((error as { code?: string }).code?.startsWith("ERR_PARSE_ARGS")) {
      err(`loadout: ${(error as Error).message}\n\n${USAGE}`);
      return EXIT.usage;
    }
    // A bug of the CLI's own: its message, and the stack only when asked for.
    err(
      `loadout: unexpected error: ${process.env.LOADOUT_DEBUG ? ((error as Error).stack ?? error) : ((error as Error).message ?? error)}` +
        (process.env.LOADOUT_DEBUG ? "" : " (set LOADOUT_DEBUG=1 for the details)"),
    );
    return EXIT.server;
  }
}

async function run(argv: string[], out: Out): Promise<number> {
  const { values, positionals } = parseArgs({
    args: argv,
    allowPositionals: true,
    strict: true,
    options: {
      url: { type: "string" },
      token: { type: "string" },
      "no-browser": { type: "boolean", default: false },
      workspace: { type: "string", short: "w" },
      "dry-run": { type: "boolean", default: false },
      json: { type: "boolean", default: false },
      project: { type: "string" },
      "project-folders": { type: "boolean", default: false },
      clients: { type: "string" },
      force: { type: "boolean", default: false },
      global: { type: "boolean", default: false },
      help: { type: "boolean", short: "h", default: false },
    },
  });
  const [command, sub, ...rest] = positionals;
  if (values.help || !command || command === "help") {
    out(USAGE);
    return values.help || command === "help" ? EXIT.ok : EXIT.usage;
  }
  const usage = (message: string) => new CliError(`${message}\n\n${USAGE}`, EXIT.usage);

  switch (command) {
    case "login": {
      const url = sub ?? values.url ?? (await serverOrigin(undefined));
      const signedIn = values.token
        ? await loginWithToken(url, values.token)
        : await login({ url, openBrowser: !values["no-browser"], out });
      out(`Signed in to ${signedIn.origin} as ${signedIn.email}.`);
      return EXIT.ok;
    }
    case "logout": {
      const origin = await serverOrigin(sub ?? values.url);
      out((await forgetCredentials(origin)) ? `Signed out of ${origin}.` : `You were not signed in to ${origin}.`);
      return EXIT.ok;
    }
    case "skills": {
      const session = await openSession(values.url);
      if (sub === "push") {
        const dir = rest[0];
        if (!dir) throw usage("skills push needs a folder: loadout skills push ./skills");
        return reportPush(
          await push(session, { dir, ws: values.workspace ?? "me", dryRun: values["dry-run"] }),
          values["dry-run"],
          out,
        );
      }
      if (sub === "pull") {
        const [address, dir = "."] = rest;
        if (!address) throw usage("skills pull needs a name: loadout skills pull code-review");
        const pulled = await pull(session, {
          address,
          dir,
          ...(values.workspace ? { workspace: values.workspace } : {}),
        });
        out(`Wrote ${pulled.files} file${pulled.files === 1 ? "" : "s"} into ${pulled.folder}.`);
        return EXIT.ok;
      }
      if (sub === "list") {
        const ws = values.workspace ?? "me";
        const items = await listItems(session, ws);
        if (values.json) out(JSON.stringify(items, null, 2));
        else if (items.length === 0) out(`No skills or personas in ${ws === "me" ? "your workspace" : ws} yet.`);
        else
          for (const i of items)
            out(`${i.name}${i.kind === "persona" ? " (persona)" : ""}  [${i.state}, v${i.version}]  ${i.description}`);
        return EXIT.ok;
      }
      throw usage(`Unknown command "skills ${sub ?? ""}".`);
    }
    case "sync": {
      const session = await openSession(values.url);
      const project = path.resolve(values.project ?? process.cwd());
      const report = await sync(session, {
        project,
        projectFolders: values["project-folders"],
        force: values.force,
        clients: values.clients
          ? values.clients
              .split(",")
              .map((c) => c.trim())
              .filter(Boolean)
          : null,
        env: process.env,
      });
      if (report.clients.length === 0)
        out(
          `No client folders found in ${process.env.HOME ?? "your home"}: name them with --clients ${LAYOUTS.map((l) => l.client).join(",")}.`,
        );
      for (const c of report.clients) {
        out(`${c.label} (${c.root}): ${c.written} written, ${c.removed} removed, ${c.unchanged} unchanged`);
        for (const k of c.kept)
          out(
            `  kept ${k.rel}: ${k.reason === "edited" ? "edited here since the last sync" : "was there before Loadout"} (--force replaces it)`,
          );
      }
      for (const s of report.skipped) out(`  skipped ${s}`);
      out(
        `${report.items.skill} skill${report.items.skill === 1 ? "" : "s"} and ${report.items.persona} persona${report.items.persona === 1 ? "" : "s"} for ${project}; reported as device ${report.deviceId}.`,
      );
      return EXIT.ok;
    }
    case "mcp": {
      if (sub !== "add" || !rest[0]) throw usage(`mcp add needs a client: ${MCP_CLIENTS.join(", ")}.`);
      if (values.global && values.project) throw usage("Give --project or --global, not both.");
      const session = await openSession(values.url);
      const added = await addMcp(session, {
        client: rest[0],
        project: values.project,
        global: values.global,
        env: process.env,
        cwd: process.cwd(),
      });
      out(`Added Loadout to ${added.file} with a new token "${added.tokenName}". Restart the client to connect.`);
      return EXIT.ok;
    }
    default:
      throw usage(`Unknown command "${command}".`);
  }
}

function reportPush(outcomes: PushOutcome[], dryRun: boolean, out: Out): number {
  let refused = 0;
  for (const o of outcomes) {
    switch (o.status) {
      case "created":
      case "updated":
        out(`${o.status} ${o.name} (version ${o.version})`);
        break;
      case "would-create":
      case "would-update":
        out(`${o.status.replace("-", " ")} ${o.name}`);
        break;
      case "unchanged":
        out(`unchanged ${o.name}`);
        break;
      case "refused":
        refused += 1;
        out(`refused ${o.name}: ${o.message}`);
        for (const d of o.details) out(`  ${o.name}/${d.path}${d.line ? `:${d.line}` : ""}: ${d.message}`);
        break;
    }
  }
  const done = outcomes.length - refused;
  out(
    `${dryRun ? "Dry run: " : ""}${done} of ${outcomes.length} ${dryRun ? "would publish" : "published or unchanged"}, ${refused} refused.`,
  );
  return refused > 0 ? EXIT.partial : EXIT.ok;
}
