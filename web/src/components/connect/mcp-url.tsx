"use client";

import { useId, useRef } from "react";
import { CopyButton } from "@/components/copy-button";
import type { ListingEstimate } from "@/lib/connect/types";
import { ToolEstimate } from "./tool-estimate";

export function McpUrlSection({ url, estimate }: { url: string; estimate: ListingEstimate | null }) {
  const id = useId();
  const inputRef = useRef<HTMLInputElement>(null);
  return (
    <section className="card" aria-labelledby={`${id}-heading`}>
      <h2 id={`${id}-heading`} className="card-title">
        Your MCP URL
      </h2>
      <p className="muted">
        One URL for every client: each sees the same skills and tools. Both the stateless 2026-07-28 revision and
        2025-era clients are served on it.
      </p>
      <div className="copy-row">
        <label htmlFor={`${id}-url`} className="visually-hidden">
          MCP URL
        </label>
        <input
          id={`${id}-url`}
          ref={inputRef}
          className="input input-mono"
          data-testid="mcp-url"
          readOnly
          spellCheck={false}
          value={url}
          onFocus={(event) => event.currentTarget.select()}
        />
        <CopyButton text={url} label="Copy the MCP URL" target={inputRef} />
      </div>
      <p className="field-hint">
        Clients authenticate with <code>Authorization: Bearer lo_…</code>, a token with the <code>mcp</code> scope. Add{" "}
        <code>X-Loadout-Project: &lt;path&gt;</code> (or <code>?project=</code>) to apply project scopes, and{" "}
        <code>X-Loadout-Mode: plan</code> (or <code>?mode=plan</code>) to offer read-only tools only.
      </p>
      {estimate && (
        <p className="field-hint">
          Tools this URL lists: <ToolEstimate estimate={estimate} testId="mcp-url-tokens" />. Add{" "}
          <code>?tools=lazy</code> to list <code>find_tools</code> and <code>call_tool</code> instead of every remote
          server tool.
        </p>
      )}
    </section>
  );
}
