import Link from "next/link";
import { Brand } from "@/components/brand";

export default function NotFound() {
  return (
    <main className="center-page">
      <div className="stack not-found">
        <Brand />
        <h1 className="page-title">Page not found</h1>
        <p className="muted">There is nothing at this address in the Loadout console.</p>
        <p>
          <Link href="/">Go to the console</Link>
        </p>
      </div>
    </main>
  );
}
