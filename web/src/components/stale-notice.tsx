"use client";

import { useState } from "react";
import { useSession } from "@/components/session-provider";

type StaleNoticeProps<T> = {
  name: string;
  load: () => Promise<T>;
  onReloaded: (fresh: T) => void;
  onError: (error: unknown) => void;
};

// A 409 on a write: someone (a teammate, an agent, another tab) saved first. Nothing of theirs is overwritten.
export function StaleNotice<T>({ name, load, onReloaded, onError }: StaleNoticeProps<T>) {
  const { handleAuthError } = useSession();
  const [loading, setLoading] = useState(false);

  const reload = async () => {
    setLoading(true);
    try {
      onReloaded(await load());
    } catch (caught) {
      if (!handleAuthError(caught)) onError(caught);
    } finally {
      setLoading(false);
    }
  };

  return (
    <div className="banner banner-warning" role="alert">
      <p className="banner-message">
        Someone else changed {name} after you opened it, so your save was refused and nothing was overwritten.
      </p>
      <p>Reload to see their version. Your edits here are replaced, so copy anything you want to keep first.</p>
      <div className="form-actions">
        <button type="button" className="button button-small" onClick={() => void reload()} disabled={loading}>
          Reload
        </button>
      </div>
    </div>
  );
}
