import type { ReactNode } from "react";

type ComingSoonProps = {
  title: string;
  children: ReactNode;
};

// A section of the console that is not built yet: it says what will be here, and shows no made-up data.
export function ComingSoon({ title, children }: ComingSoonProps) {
  return (
    <>
      <title>{`${title} · Loadout`}</title>
      <header className="page-header">
        <h1 className="page-title">
          {title} <span className="badge">Coming soon</span>
        </h1>
      </header>
      <section className="card coming-soon">{children}</section>
    </>
  );
}
