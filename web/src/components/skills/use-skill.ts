"use client";

import { useCallback, useEffect, useState } from "react";
import { useSession } from "@/components/session-provider";
import { getSkill } from "@/lib/skills/client";
import type { SkillDetail } from "@/lib/skills/types";
import { useWorkspace } from "@/lib/workspace";

export type SkillLoad =
  | { kind: "loading" }
  | { kind: "ready"; skill: SkillDetail }
  | { kind: "failed"; error: unknown };

// One item by name, for the editor and the history page; `reload` fetches it again.
export function useSkill(name: string): { load: SkillLoad; reload: () => Promise<void> } {
  const ws = useWorkspace();
  const { handleAuthError } = useSession();
  const [load, setLoad] = useState<SkillLoad>({ kind: "loading" });

  const reload = useCallback(async () => {
    try {
      setLoad({ kind: "ready", skill: await getSkill(ws, name) });
    } catch (caught) {
      if (!handleAuthError(caught)) setLoad({ kind: "failed", error: caught });
    }
  }, [ws, name, handleAuthError]);

  useEffect(() => {
    setLoad({ kind: "loading" });
    void reload();
  }, [reload]);

  return { load, reload };
}
