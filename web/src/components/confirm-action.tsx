"use client";

import { useEffect, useRef, useState } from "react";

type ConfirmActionProps = {
  // The button's word ("Revoke", "Disconnect") and what it acts on, for the question.
  verb: string;
  target: string;
  onConfirm: () => Promise<void>;
};

// A destructive row action asked twice: the button opens "Yes, <verb>" / Cancel, with Cancel focused.
export function ConfirmAction({ verb, target, onConfirm }: ConfirmActionProps) {
  const [confirming, setConfirming] = useState(false);
  const [working, setWorking] = useState(false);
  const cancelRef = useRef<HTMLButtonElement>(null);

  useEffect(() => {
    if (confirming) cancelRef.current?.focus();
  }, [confirming]);

  if (!confirming)
    return (
      <button type="button" className="button button-small button-danger-outline" onClick={() => setConfirming(true)}>
        {verb}
      </button>
    );
  return (
    <fieldset className="confirm" disabled={working}>
      <legend className="visually-hidden">
        {verb} {target}?
      </legend>
      <span className="confirm-question" aria-hidden="true">
        {verb}?
      </span>
      <button
        type="button"
        className="button button-small button-danger"
        onClick={async () => {
          setWorking(true);
          try {
            await onConfirm();
          } finally {
            setWorking(false);
            setConfirming(false);
          }
        }}
      >
        Yes, {verb.toLowerCase()}
      </button>
      <button
        type="button"
        className="button button-small button-ghost"
        ref={cancelRef}
        onClick={() => setConfirming(false)}
      >
        Cancel
      </button>
    </fieldset>
  );
}
