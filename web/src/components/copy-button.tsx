"use client";

import { type RefObject, useEffect, useState } from "react";

type CopyButtonProps = {
  text: string;
  // The accessible name, e.g. "Copy the MCP URL"; the button itself reads "Copy".
  label: string;
  // Shown selected when the clipboard cannot be written, so Ctrl+C still works.
  target?: RefObject<HTMLElement | null>;
  className?: string;
};

type CopyState = "idle" | "copied" | "selected";

function select(element: HTMLElement | null | undefined): boolean {
  if (!element) return false;
  if (element instanceof HTMLInputElement || element instanceof HTMLTextAreaElement) {
    element.focus();
    element.select();
    return true;
  }
  const selection = window.getSelection();
  if (!selection) return false;
  const range = document.createRange();
  range.selectNodeContents(element);
  selection.removeAllRanges();
  selection.addRange(range);
  return true;
}

export function CopyButton({ text, label, target, className }: CopyButtonProps) {
  // What happened to which text: a changed text (a new token in a snippet) has not been copied yet.
  const [result, setResult] = useState<{ state: CopyState; text: string }>({ state: "idle", text });
  const state = result.text === text ? result.state : "idle";
  const setState = (next: CopyState) => setResult({ state: next, text });

  useEffect(() => {
    if (result.state !== "copied") return;
    const timer = window.setTimeout(() => setResult((current) => ({ ...current, state: "idle" })), 2000);
    return () => window.clearTimeout(timer);
  }, [result]);

  const copy = async () => {
    try {
      // navigator.clipboard is missing outside secure contexts (plain http on another host).
      if (!navigator.clipboard) throw new Error("Clipboard API unavailable");
      await navigator.clipboard.writeText(text);
      setState("copied");
    } catch {
      if (!select(target?.current)) return;
      // The legacy command still works where the Clipboard API does not; if it fails too, the text stays selected.
      setState(document.execCommand("copy") ? "copied" : "selected");
    }
  };

  return (
    <span className="copy">
      <button type="button" className={className ?? "button"} aria-label={label} onClick={() => void copy()}>
        {state === "copied" ? "Copied" : "Copy"}
      </button>
      <span className={state === "selected" ? "copy-status" : "visually-hidden"} aria-live="polite">
        {state === "copied" && "Copied to the clipboard."}
        {state === "selected" && "Selected: press Ctrl+C (⌘C on a Mac)."}
      </span>
    </span>
  );
}
