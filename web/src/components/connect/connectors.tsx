"use client";

import Link from "next/link";
import { useRef } from "react";
import { CopyButton } from "@/components/copy-button";

type Field = { label: string; value: string; hint?: string; copy?: boolean };

type Connector = { host: string; where: string; fields: Field[]; note?: string };

function connectors(url: string): Connector[] {
  return [
    {
      host: "Claude",
      where:
        "claude.ai or Claude Desktop: Settings → Connectors → Add custom connector. The labels vary a little by plan.",
      fields: [
        { label: "Name", value: "Loadout" },
        { label: "Remote MCP server URL", value: url, copy: true },
        {
          label: "Authentication",
          value: "OAuth",
          hint: "Leave the advanced OAuth Client ID and Secret empty: Claude registers itself.",
        },
      ],
    },
    {
      host: "ChatGPT",
      where:
        "ChatGPT's settings, under Connectors (Apps in newer versions): turn on developer mode under Advanced, then Create.",
      fields: [
        { label: "Name", value: "Loadout" },
        {
          label: "Description",
          value: "My Loadout skills, personas and tools",
          hint: "Optional: the model reads it to decide when to use the connector.",
        },
        { label: "MCP Server URL", value: url, copy: true },
        { label: "Authentication", value: "OAuth" },
      ],
      note: "Outside developer mode ChatGPT uses only tools named search and fetch; Loadout offers them to ChatGPT, and to a saved endpoint that opts in.",
    },
  ];
}

function FieldValue({ field }: { field: Field }) {
  const ref = useRef<HTMLElement>(null);
  return (
    <dd>
      <div className="connector-value">
        <code ref={ref} className="connector-code">
          {field.value}
        </code>
        {field.copy && (
          <CopyButton
            text={field.value}
            label={`Copy the ${field.label}`}
            target={ref}
            className="button button-small"
          />
        )}
      </div>
      {field.hint && <p className="field-hint">{field.hint}</p>}
    </dd>
  );
}

// What to type in each host's dialog. There is nothing to click here: the host's dialog does the connecting.
export function Connectors({ mcpUrl }: { mcpUrl: string }) {
  return (
    <>
      <p className="muted">
        ChatGPT and Claude add remote MCP servers as connectors, which sign in with OAuth: neither takes a pasted API
        token, nor one in the URL.
      </p>
      <div className="banner banner-info" role="note" data-testid="oauth-status">
        <p className="banner-message">
          The app sends you to Loadout to sign in and allow it; you choose the workspaces it reaches and, if you like, a
          project and mode. It then appears under <Link href="/apps/">Connected apps</Link>, where you can disconnect
          it.
        </p>
        {!mcpUrl.startsWith("https://") && (
          <p>
            ChatGPT and Claude reach the server from the internet: they need this URL on public https (behind a TLS
            proxy), not on this machine.
          </p>
        )}
      </div>
      <div className="connector-grid">
        {connectors(mcpUrl).map((connector) => (
          <section key={connector.host} className="connector" aria-label={`${connector.host} connector fields`}>
            <h3 className="section-title">{connector.host}</h3>
            <p className="field-hint">{connector.where}</p>
            <dl className="connector-fields">
              {connector.fields.map((field) => (
                <div key={field.label} className="connector-field">
                  <dt>{field.label}</dt>
                  <FieldValue field={field} />
                </div>
              ))}
            </dl>
            {connector.note && <p className="field-hint">{connector.note}</p>}
          </section>
        ))}
      </div>
    </>
  );
}
