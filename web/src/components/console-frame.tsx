"use client";

import Link from "next/link";
import { usePathname, useRouter } from "next/navigation";
import { Fragment, type ReactNode, useEffect, useMemo, useRef, useState } from "react";
import { api, rememberCsrfToken } from "@/lib/api";
import { SIGN_IN_PATH } from "@/lib/navigation";
import {
  type CurrentWorkspace,
  PERSONAL_WORKSPACE,
  storedWorkspace,
  storeWorkspace,
  WorkspaceContext,
  workspaceFor,
} from "@/lib/workspace";
import { Brand } from "./brand";
import { ErrorBanner } from "./error-banner";
import { GettingStarted } from "./getting-started";
import { useSession } from "./session-provider";

/** Where a new user lands: after setup (Tokens) and after sign-in (Skills). */
const LANDING_PAGES = ["/skills/", "/tokens/"];

const SECTIONS = [
  { href: "/skills/", label: "Skills" },
  { href: "/servers/", label: "Servers" },
  { href: "/connect/", label: "Connect" },
  { href: "/tokens/", label: "Tokens" },
  { href: "/apps/", label: "Connected apps" },
  { href: "/team/", label: "Team" },
  { href: "/activity/", label: "Activity" },
] as const;

// Pages that show one item of a workspace, and the list to go to when the workspace changes: the
// item belongs to the workspace left behind.
const ITEM_PAGES: [prefix: string, list: string][] = [
  ["/skills/edit/", "/skills/"],
  ["/skills/history/", "/skills/"],
  ["/servers/edit/", "/servers/"],
];

function withTrailingSlash(path: string): string {
  return path.endsWith("/") ? path : `${path}/`;
}

export function ConsoleFrame({ children }: { children: ReactNode }) {
  const { me, handleAuthError } = useSession();
  const pathname = withTrailingSlash(usePathname());
  const router = useRouter();
  const [signingOut, setSigningOut] = useState(false);
  const [error, setError] = useState<unknown>(null);

  const [ws, setWs] = useState<string | null>(null);
  const firstRun = useRef(true);

  // Read once on the client (the static export renders without storage), then kept in step with
  // the memberships: a team the user left falls back to the personal workspace.
  // A link may name its workspace (`?ws=acme`), so a teammate's link opens in the team.
  useEffect(() => {
    const named = firstRun.current ? new URLSearchParams(window.location.search).get("ws") : null;
    firstRun.current = false;
    const linked = named && workspaceFor(me.workspaces, named) ? named : null;
    if (linked) storeWorkspace(linked);
    setWs((current) => {
      if (current === null) return linked ?? storedWorkspace(me.workspaces);
      return workspaceFor(me.workspaces, current) ? current : storedWorkspace(me.workspaces);
    });
  }, [me.workspaces]);

  const current = useMemo<CurrentWorkspace>(() => {
    const slug = ws ?? PERSONAL_WORKSPACE;
    return {
      ws: slug,
      workspace: workspaceFor(me.workspaces, slug),
      select: (next: string) => {
        storeWorkspace(next);
        setWs(next);
        const list = ITEM_PAGES.find(([prefix]) => pathname.startsWith(prefix))?.[1];
        if (list) router.push(list);
      },
    };
  }, [ws, me.workspaces, pathname, router]);

  const signOut = async () => {
    setSigningOut(true);
    setError(null);
    try {
      await api.post<void>("/v1/auth/logout");
    } catch (caught) {
      // Already signed out elsewhere is as good as signing out here.
      if (!handleAuthError(caught)) {
        setError(caught);
        setSigningOut(false);
        return;
      }
    }
    rememberCsrfToken(null);
    router.replace(SIGN_IN_PATH);
  };

  return (
    <div className="frame">
      <aside className="sidebar">
        <div className="sidebar-top">
          <Link href="/skills/" className="brand-link" aria-label="Loadout home">
            <Brand />
          </Link>
          <div className="workspace">
            <label className="workspace-label" htmlFor="workspace-switcher">
              Workspace
            </label>
            <select
              id="workspace-switcher"
              className="input workspace-select"
              data-testid="workspace-name"
              value={current.ws}
              onChange={(event) => current.select(event.target.value)}
            >
              {/* Grouped rather than suffixed "(personal)"/"(team)": the narrow sidebar cut the suffix in half. */}
              {(["personal", "team"] as const).map((kind) => {
                const group = me.workspaces.filter(
                  (workspace) => (workspace.kind === "personal") === (kind === "personal"),
                );
                return group.length === 0 ? null : (
                  <optgroup key={kind} label={kind === "personal" ? "Personal" : "Teams"}>
                    {group.map((workspace) => (
                      <option key={workspace.id} value={kind === "personal" ? PERSONAL_WORKSPACE : workspace.slug}>
                        {workspace.name}
                      </option>
                    ))}
                  </optgroup>
                );
              })}
            </select>
          </div>
        </div>
        <nav className="nav" aria-label="Console">
          <ul>
            {SECTIONS.map((section) => (
              <li key={section.href}>
                <Link
                  href={section.href}
                  className="nav-link"
                  aria-current={pathname.startsWith(section.href) ? "page" : undefined}
                >
                  {section.label}
                </Link>
              </li>
            ))}
          </ul>
        </nav>
        <div className="account">
          <span className="account-email" title={me.user.email} data-testid="user-email">
            {me.user.email}
          </span>
          <button type="button" className="button button-small" onClick={signOut} disabled={signingOut}>
            Sign out
          </button>
        </div>
      </aside>
      <main className="content">
        <ErrorBanner error={error} />
        <WorkspaceContext.Provider value={current}>
          {/* A new workspace is a new page: every view loads its data again. */}
          {ws !== null && (
            <Fragment key={ws}>
              {LANDING_PAGES.includes(pathname) && <GettingStarted />}
              {children}
            </Fragment>
          )}
        </WorkspaceContext.Provider>
      </main>
    </div>
  );
}
