"use client";

import { useId, useRef } from "react";
import { CopyButton } from "@/components/copy-button";
import { useOrigin } from "@/lib/connect/origin";
import type { Server } from "@/lib/servers/types";
import { useWorkspace } from "@/lib/workspace";

// The URL that serves only this server's tools, under their own names, with the same token and rules.
export function ServerUrl({ server }: { server: Server }) {
  const id = useId();
  const inputRef = useRef<HTMLInputElement>(null);
  const origin = useOrigin();
  const ws = useWorkspace();
  const url = `${origin}/mcp/s/${encodeURIComponent(ws)}/${encodeURIComponent(server.slug)}`;
  return (
    <div className="server-url-block">
      <label htmlFor={`${id}-url`} className="field-label">
        This server alone
      </label>
      <div className="copy-row">
        <input
          id={`${id}-url`}
          ref={inputRef}
          className="input input-mono"
          data-testid="server-mcp-url"
          readOnly
          spellCheck={false}
          value={url}
          onFocus={(event) => event.currentTarget.select()}
        />
        <CopyButton text={url} label="Copy this server's MCP URL" target={inputRef} />
      </div>
      <p className="field-hint">
        An MCP URL that offers only {server.label}&apos;s approved tools, under their own names, with the same token,
        scope and mode rules as your main URL.
      </p>
    </div>
  );
}
