"use client";

import { useEffect, useId, useRef, useState } from "react";

type TokenSecretProps = {
  name: string;
  secret: string;
  onDismiss: () => void;
};

type CopyState = "idle" | "copied" | "selected";

// The secret exists in the browser only until this box is dismissed: the API never returns it again.
export function TokenSecret({ name, secret, onDismiss }: TokenSecretProps) {
  const headingId = useId();
  const boxRef = useRef<HTMLElement>(null);
  const secretRef = useRef<HTMLElement>(null);
  const [copyState, setCopyState] = useState<CopyState>("idle");

  useEffect(() => {
    boxRef.current?.focus();
  }, []);

  const selectSecret = (): boolean => {
    const element = secretRef.current;
    const selection = window.getSelection();
    if (!element || !selection) return false;
    const range = document.createRange();
    range.selectNodeContents(element);
    selection.removeAllRanges();
    selection.addRange(range);
    return true;
  };

  const copy = async () => {
    try {
      // navigator.clipboard is missing outside secure contexts (plain http on another host).
      if (!navigator.clipboard) throw new Error("Clipboard API unavailable");
      await navigator.clipboard.writeText(secret);
      setCopyState("copied");
    } catch {
      if (!selectSecret()) return;
      // The legacy command still works where the Clipboard API does not; if it fails too, the text stays selected.
      setCopyState(document.execCommand("copy") ? "copied" : "selected");
    }
  };

  return (
    <section className="secret-box" aria-labelledby={headingId} ref={boxRef} tabIndex={-1}>
      <div className="secret-header">
        <h2 id={headingId} className="secret-title">
          Token “{name}” created
        </h2>
        <button type="button" className="button button-small button-ghost" onClick={onDismiss}>
          Dismiss
        </button>
      </div>
      <p className="secret-warning">
        Copy this token now. It won&apos;t be shown again: Loadout stores only a hash of it.
      </p>
      <div className="secret-row">
        <code className="secret-value" data-testid="token-secret" ref={secretRef}>
          {secret}
        </code>
        <button type="button" className="button button-primary" onClick={copy}>
          Copy
        </button>
      </div>
      <p className="secret-status" aria-live="polite">
        {copyState === "copied" && "Copied to the clipboard."}
        {copyState === "selected" && "Selected. Press Ctrl+C (⌘C on a Mac) to copy."}
      </p>
    </section>
  );
}
