"use client";

import { useEffect, useRef, useState } from "react";

type InlineConfirmProps = {
  action: string; // "Remove", "Restore"
  question: string;
  confirmLabel: string; // "Yes, remove"
  danger?: boolean;
  disabled?: boolean;
  onConfirm: () => Promise<void>;
};

// Ask in place, never with a browser dialog: the first button turns into the question and its answers.
export function InlineConfirm({ action, question, confirmLabel, danger, disabled, onConfirm }: InlineConfirmProps) {
  const [asking, setAsking] = useState(false);
  const [busy, setBusy] = useState(false);
  const cancelRef = useRef<HTMLButtonElement>(null);

  useEffect(() => {
    if (asking) cancelRef.current?.focus();
  }, [asking]);

  if (!asking) {
    return (
      <button
        type="button"
        className={`button ${danger ? "button-danger-outline" : ""}`}
        disabled={disabled}
        onClick={() => setAsking(true)}
      >
        {action}
      </button>
    );
  }

  const confirm = async () => {
    setBusy(true);
    try {
      await onConfirm();
    } finally {
      setBusy(false);
      setAsking(false);
    }
  };

  return (
    <fieldset className="confirm confirm-inline" disabled={busy}>
      <legend className={danger ? "confirm-question" : "confirm-question confirm-question-neutral"}>{question}</legend>
      <div className="confirm-buttons">
        <button
          type="button"
          className={`button ${danger ? "button-danger" : "button-primary"}`}
          onClick={() => void confirm()}
          aria-busy={busy}
        >
          {confirmLabel}
        </button>
        <button type="button" className="button button-ghost" ref={cancelRef} onClick={() => setAsking(false)}>
          Cancel
        </button>
      </div>
    </fieldset>
  );
}
