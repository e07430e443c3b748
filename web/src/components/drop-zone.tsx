"use client";

import { type DragEvent, type ReactNode, useState } from "react";

/**
 * A file input's surroundings that also take files dragged from the desktop. The input stays the
 * keyboard's and screen reader's way in; dropping is the quicker way for a mouse.
 */
export function DropZone({
  onFiles,
  label,
  testId,
  children,
}: {
  onFiles: (files: File[]) => void;
  label: string;
  testId: string;
  children: ReactNode;
}) {
  const [over, setOver] = useState(false);
  const hasFiles = (event: DragEvent) => Array.from(event.dataTransfer.types).includes("Files");
  return (
    // biome-ignore lint/a11y/noStaticElementInteractions: drag and drop only; the file input inside is the accessible control.
    <div
      className={`drop-zone${over ? " drop-zone-over" : ""}`}
      data-testid={testId}
      onDragOver={(event) => {
        if (!hasFiles(event)) return;
        event.preventDefault();
        event.dataTransfer.dropEffect = "copy";
        setOver(true);
      }}
      onDragLeave={() => setOver(false)}
      onDrop={(event) => {
        event.preventDefault();
        setOver(false);
        const files = Array.from(event.dataTransfer.files);
        if (files.length > 0) onFiles(files);
      }}
    >
      {children}
      <p className="drop-zone-hint muted">{label}</p>
    </div>
  );
}
