"use client";

import { LineDiffView } from "@/components/skills/line-diff-view";
import { descriptionText, schemaText } from "@/lib/servers/tool-diff";
import type { ToolView } from "@/lib/servers/types";

function DefinitionDiff({
  heading,
  before,
  after,
  label,
}: {
  heading: string;
  before: string;
  after: string;
  label: string;
}) {
  return (
    <>
      <h4 className="diff-heading">{heading}</h4>
      {before === after ? (
        <p className="muted">Unchanged.</p>
      ) : (
        <LineDiffView before={before} after={after} label={label} />
      )}
    </>
  );
}

/**
 * What an opened tool row shows: a changed tool's definition as approved and as it is now, any
 * other tool's whole definition, and the name agents see.
 */
export function ToolDefinition({ tool }: { tool: ToolView }) {
  if (tool.pin === "changed") {
    return (
      <div className="tool-definition">
        <p className="muted">
          Agents no longer see this tool: its definition changed since you approved it. Approve the new definition to
          offer it again.
        </p>
        <DefinitionDiff
          heading="Description"
          before={descriptionText(tool.approved)}
          after={descriptionText(tool)}
          label={`${tool.name}: description, approved and now`}
        />
        <DefinitionDiff
          heading="Input schema"
          before={schemaText(tool.approved)}
          after={schemaText(tool)}
          label={`${tool.name}: input schema, approved and now`}
        />
      </div>
    );
  }
  return (
    <div className="tool-definition">
      {tool.title && <p className="tool-title">{tool.title}</p>}
      <p className="pin-description">{tool.description || <span className="muted">No description</span>}</p>
      <p className="muted">
        Agents see it as <code>{tool.exposedName}</code>.
      </p>
      <h4 className="diff-heading">Input schema</h4>
      <pre className="pin-schema-code">{schemaText(tool)}</pre>
    </div>
  );
}
