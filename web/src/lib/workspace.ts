"use client";

import { createContext, useContext } from "react";
import type { Workspace } from "./types";

// The workspace the console works in: the personal one (`me`) or a team's slug. The frame's
// switcher provides it; every page that reads or writes items asks this hook.
export const PERSONAL_WORKSPACE = "me";
const STORAGE_KEY = "loadout.workspace";

export type CurrentWorkspace = {
  // `me` or a team's slug: what goes in /v1/workspaces/{ws}.
  ws: string;
  workspace: Workspace | null;
  select: (slug: string) => void;
};

export const WorkspaceContext = createContext<CurrentWorkspace>({
  ws: PERSONAL_WORKSPACE,
  workspace: null,
  select: () => {},
});

export function useWorkspace(): string {
  return useContext(WorkspaceContext).ws;
}

export function useCurrentWorkspace(): CurrentWorkspace {
  return useContext(WorkspaceContext);
}

// The slug kept from the last visit, if the user still belongs to that team.
export function storedWorkspace(workspaces: Workspace[]): string {
  let stored: string | null = null;
  try {
    stored = window.localStorage.getItem(STORAGE_KEY);
  } catch {
    stored = null;
  }
  return stored && workspaces.some((w) => w.kind === "team" && w.slug === stored) ? stored : PERSONAL_WORKSPACE;
}

export function storeWorkspace(ws: string): void {
  try {
    if (ws === PERSONAL_WORKSPACE) window.localStorage.removeItem(STORAGE_KEY);
    else window.localStorage.setItem(STORAGE_KEY, ws);
  } catch {
    // Storage refused (private mode): the choice lasts for this page only.
  }
}

export function workspaceFor(workspaces: Workspace[], ws: string): Workspace | null {
  return (
    workspaces.find((w) => (ws === PERSONAL_WORKSPACE ? w.kind === "personal" : w.kind === "team" && w.slug === ws)) ??
    null
  );
}
