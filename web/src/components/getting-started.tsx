"use client";

import Link from "next/link";
import { useEffect, useState } from "react";
import { api } from "@/lib/api";
import { listConnections } from "@/lib/connect/client";
import { listServers } from "@/lib/servers/client";
import { listSkills } from "@/lib/skills/client";
import type { TokenList } from "@/lib/types";
import { useWorkspace } from "@/lib/workspace";

type Progress = { token: boolean; client: boolean; skill: boolean; server: boolean };

const STEPS: { key: keyof Progress; label: string; href: string; action: string }[] = [
  // Verbs, not page names: the sidebar's links already carry those.
  { key: "token", label: "Create a token", href: "/tokens/", action: "Create one" },
  { key: "client", label: "Connect a client", href: "/connect/", action: "Set one up" },
  { key: "skill", label: "Write or import a skill", href: "/skills/new/?kind=skill", action: "Write one" },
  { key: "server", label: "Add a remote MCP server", href: "/servers/", action: "Add one" },
];

const DISMISSED = "loadout.gettingStarted.dismissed";
/** How often to look for the first MCP call while "Connect a client" waits for it. */
const POLL_MS = 4000;

async function readProgress(ws: string): Promise<Progress> {
  // "Connect a client" reads what the Connect page lists: the sessions that made MCP calls.
  const [tokens, connections, skills, servers] = await Promise.all([
    api.get<TokenList>("/v1/tokens"),
    listConnections(),
    listSkills(ws, { kind: "skill", limit: 1 }),
    listServers(ws),
  ]);
  return {
    token: tokens.tokens.length > 0,
    client: connections.connections.length > 0,
    skill: skills.items.length > 0,
    server: servers.servers.length > 0,
  };
}

/**
 * The first steps, on the pages a new user lands on, each ticked from what exists. It goes once
 * every step is done, or when dismissed.
 */
export function GettingStarted() {
  const ws = useWorkspace();
  const [progress, setProgress] = useState<Progress | null>(null);
  const [dismissed, setDismissed] = useState(true);

  useEffect(() => {
    try {
      setDismissed(window.localStorage.getItem(DISMISSED) === "1");
    } catch {
      setDismissed(false);
    }
  }, []);

  useEffect(() => {
    if (dismissed) return;
    let stopped = false;
    let timer: ReturnType<typeof setTimeout> | undefined;
    const load = async () => {
      try {
        const next = await readProgress(ws);
        if (stopped) return;
        setProgress(next);
        if (!next.client) timer = setTimeout(() => void load(), POLL_MS);
      } catch {
        // A hint only: the page itself reports what failed.
      }
    };
    void load();
    return () => {
      stopped = true;
      if (timer) clearTimeout(timer);
    };
  }, [ws, dismissed]);

  if (dismissed || !progress || STEPS.every((step) => progress[step.key])) return null;
  const done = STEPS.filter((step) => progress[step.key]).length;
  const dismiss = () => {
    setDismissed(true);
    try {
      window.localStorage.setItem(DISMISSED, "1");
    } catch {
      // Hidden for this visit only.
    }
  };
  return (
    <section className="card getting-started" aria-labelledby="getting-started-heading" data-testid="getting-started">
      <div className="getting-started-head">
        <h2 id="getting-started-heading" className="card-title">
          Getting started · {done} of {STEPS.length}
        </h2>
        <button type="button" className="button button-small button-ghost" onClick={dismiss}>
          Hide
        </button>
      </div>
      <ol className="checklist">
        {STEPS.map((step) => (
          <li key={step.key} data-done={progress[step.key]} data-testid={`step-${step.key}`}>
            <span className="checklist-mark" aria-hidden="true">
              {progress[step.key] ? "✓" : ""}
            </span>
            <span className="checklist-label">
              {step.label}
              <span className="visually-hidden">{progress[step.key] ? " (done)" : " (to do)"}</span>
            </span>
            {!progress[step.key] && (
              <Link href={step.href} className="button button-small">
                {step.action}
              </Link>
            )}
          </li>
        ))}
      </ol>
      {progress.token && !progress.client && (
        <p className="muted">
          Add the MCP URL to a client from the Connect page; this ticks itself when its first call arrives.
        </p>
      )}
    </section>
  );
}
