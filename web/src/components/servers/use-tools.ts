"use client";

import { useCallback, useEffect, useState } from "react";
import { useSession } from "@/components/session-provider";
import { approveTools, listTools, updateTool } from "@/lib/servers/client";
import type { ToolEdit, ToolList, ToolView } from "@/lib/servers/types";
import { useWorkspace } from "@/lib/workspace";

export type ToolsLoad = { kind: "loading" } | { kind: "ready"; list: ToolList } | { kind: "failed"; error: unknown };

function merge(list: ToolList, updated: readonly ToolView[]): ToolList {
  const byName = new Map(updated.map((tool) => [tool.name, tool]));
  return { ...list, tools: list.tools.map((tool) => byName.get(tool.name) ?? tool) };
}

// The server's cached tool list, with per-tool edits and approvals applied in place.
export function useTools(slug: string) {
  const ws = useWorkspace();
  const { handleAuthError } = useSession();
  const [load, setLoad] = useState<ToolsLoad>({ kind: "loading" });
  const [approving, setApproving] = useState<string | null>(null);
  const [approveError, setApproveError] = useState<unknown>(null);

  const reload = useCallback(async () => {
    try {
      setLoad({ kind: "ready", list: await listTools(ws, slug) });
    } catch (caught) {
      if (!handleAuthError(caught)) setLoad({ kind: "failed", error: caught });
    }
  }, [ws, slug, handleAuthError]);

  useEffect(() => {
    void reload();
  }, [reload]);

  const edit = useCallback(
    async (tool: ToolView, change: ToolEdit) => {
      try {
        const updated = await updateTool(ws, slug, tool.name, change);
        setLoad((current) =>
          current.kind === "ready" ? { kind: "ready", list: merge(current.list, [updated]) } : current,
        );
      } catch (caught) {
        if (!handleAuthError(caught)) throw caught;
      }
    },
    [ws, slug, handleAuthError],
  );

  const approve = useCallback(
    async (names: string[] | undefined) => {
      setApproving(names?.[0] ?? "*");
      setApproveError(null);
      try {
        const { tools } = await approveTools(ws, slug, names);
        setLoad((current) =>
          current.kind === "ready" ? { kind: "ready", list: merge(current.list, tools) } : current,
        );
      } catch (caught) {
        if (!handleAuthError(caught)) setApproveError(caught);
      } finally {
        setApproving(null);
      }
    },
    [ws, slug, handleAuthError],
  );

  // A list that arrived another way (Test refreshes it and answers with it).
  const replace = useCallback((list: ToolList) => setLoad({ kind: "ready", list }), []);

  return { load, reload, replace, edit, approve, approving, approveError };
}
