"use client";

import type { ReactNode } from "react";
import { ConsoleFrame } from "@/components/console-frame";
import { SessionProvider } from "@/components/session-provider";

export default function ConsoleLayout({ children }: { children: ReactNode }) {
  return (
    <SessionProvider>
      <ConsoleFrame>{children}</ConsoleFrame>
    </SessionProvider>
  );
}
