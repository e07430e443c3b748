"use client";

import Link from "next/link";
import { usePathname, useRouter } from "next/navigation";
import { type ReactNode, useState } from "react";
import { api, rememberCsrfToken } from "@/lib/api";
import { SIGN_IN_PATH } from "@/lib/navigation";
import { Brand } from "./brand";
import { ErrorBanner } from "./error-banner";
import { useSession } from "./session-provider";

const SECTIONS = [
  { href: "/skills/", label: "Skills" },
  { href: "/servers/", label: "Servers" },
  { href: "/connect/", label: "Connect" },
  { href: "/tokens/", label: "Tokens" },
  { href: "/apps/", label: "Connected apps" },
  { href: "/team/", label: "Team" },
  { href: "/activity/", label: "Activity" },
] as const;

function withTrailingSlash(path: string): string {
  return path.endsWith("/") ? path : `${path}/`;
}

export function ConsoleFrame({ children }: { children: ReactNode }) {
  const { me, handleAuthError } = useSession();
  const pathname = withTrailingSlash(usePathname());
  const router = useRouter();
  const [signingOut, setSigningOut] = useState(false);
  const [error, setError] = useState<unknown>(null);

  const personal = me.workspaces.find((workspace) => workspace.kind === "personal");

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
          {personal && (
            <div className="workspace" title={`Workspace: ${personal.name} (${personal.slug})`}>
              <span className="workspace-label">Workspace</span>
              <span className="workspace-name" data-testid="workspace-name">
                {personal.name}
              </span>
            </div>
          )}
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
        {children}
      </main>
    </div>
  );
}
