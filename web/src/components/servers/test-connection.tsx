"use client";

import { useEffect, useState } from "react";
import { ErrorBanner } from "@/components/error-banner";
import { useSession } from "@/components/session-provider";
import { testServer } from "@/lib/servers/client";
import type { Server, TestResult } from "@/lib/servers/types";
import { useWorkspace } from "@/lib/workspace";
import { StatusLight } from "./status-light";

type TestConnectionProps = {
  server: Server;
  onTested: (result: TestResult) => void;
};

// Test: connect, list the tools, show the light. While it runs the light says so and the seconds count.
export function TestConnection({ server, onTested }: TestConnectionProps) {
  const ws = useWorkspace();
  const { handleAuthError } = useSession();
  const [startedAt, setStartedAt] = useState<number | null>(null);
  const [elapsed, setElapsed] = useState(0);
  const [error, setError] = useState<unknown>(null);
  const [outcome, setOutcome] = useState<string | null>(null);
  const testing = startedAt !== null;

  useEffect(() => {
    if (startedAt === null) return;
    const timer = setInterval(() => setElapsed(Math.floor((Date.now() - startedAt) / 1000)), 500);
    return () => clearInterval(timer);
  }, [startedAt]);

  const run = async () => {
    setStartedAt(Date.now());
    setElapsed(0);
    setError(null);
    setOutcome(null);
    try {
      const result = await testServer(ws, server.slug);
      onTested(result);
      const count = result.tools.tools.length;
      setOutcome(
        result.error
          ? "The test failed; the reason is shown above."
          : `Connected: the server lists ${count} ${count === 1 ? "tool" : "tools"}.`,
      );
    } catch (caught) {
      if (!handleAuthError(caught)) setError(caught);
    } finally {
      setStartedAt(null);
    }
  };

  return (
    <div className="test-connection">
      <div className="test-row">
        <StatusLight
          status={server.status}
          lastError={server.lastError}
          checkedAt={server.checkedAt}
          testing={testing}
          showError
        />
        <button type="button" className="button" onClick={() => void run()} disabled={testing} aria-busy={testing}>
          {testing ? "Testing…" : "Test"}
        </button>
      </div>
      <p className="form-status" role="status">
        {testing
          ? `Connecting to the server and listing its tools… ${elapsed > 0 ? `${elapsed} s` : ""}`
          : (outcome ?? "")}
      </p>
      <ErrorBanner error={error} />
    </div>
  );
}
