import type { Metadata } from "next";
import Link from "next/link";
import { Brand } from "@/components/brand";

export const metadata: Metadata = { title: "Page not found · Loadout" };

// Exported as 404.html: the Node host and the Worker's assets answer every console address that
// matches no page with it (status 404); API paths keep their JSON errors.
export default function NotFound() {
  return (
    <main className="center-page">
      <div className="stack not-found">
        <Brand />
        <h1 className="page-title">Page not found</h1>
        <p className="muted">
          There is nothing at this address in the Loadout console. Check the link, or start again.
        </p>
        <p>
          <Link href="/">Go to the console</Link> · <a href="/v1/docs">API reference</a>
        </p>
      </div>
    </main>
  );
}
