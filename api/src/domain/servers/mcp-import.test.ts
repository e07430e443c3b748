import { describe, expect, it } from "vitest";
import { type ImportedServer, type McpImportResult, parseMcpImport, placeholdersIn } from "./mcp-import";

// Pastes are written the way each client's documentation shows them.

const STDIO = "stdio servers cannot run in a hosted service";
const PASTE = `Paste the "mcpServers" block from your client's config, such as {"mcpServers": {"name": {"url": "https://…"}}}.`;

function remote(name: string, url: string, more: Partial<ImportedServer> = {}): ImportedServer {
  return { name, url, transport: "streamable-http", headers: {}, enabled: true, placeholders: [], ...more };
}
const bearer = (placeholder: string) => [{ header: "Authorization", placeholder }];

type Case = [title: string, text: string, expected: McpImportResult];

const clientDocs: Case[] = [
  [
    "Claude Desktop claude_desktop_config.json with a stdio npx server",
    `{
  "mcpServers": {
    "filesystem": {
      "command": "npx",
      "args": [
        "-y",
        "@modelcontextprotocol/server-filesystem",
        "/Users/username/Desktop",
        "/Users/username/Downloads"
      ]
    }
  }
}`,
    { servers: [], skipped: [{ name: "filesystem", reason: STDIO }] },
  ],
  [
    "Claude Code .mcp.json: type http and sse",
    `{
  "mcpServers": {
    "notion": { "type": "http", "url": "https://mcp.notion.com/mcp" },
    "sentry": { "type": "http", "url": "https://mcp.sentry.dev/mcp" },
    "asana": { "type": "sse", "url": "https://mcp.asana.com/sse" }
  }
}`,
    {
      servers: [
        remote("notion", "https://mcp.notion.com/mcp"),
        remote("sentry", "https://mcp.sentry.dev/mcp"),
        remote("asana", "https://mcp.asana.com/sse", { transport: "sse" }),
      ],
      skipped: [],
    },
  ],
  [
    "Claude Code .mcp.json with environment expansion in the URL",
    `{
  "mcpServers": {
    "api-server": {
      "type": "http",
      "url": "\${API_BASE_URL:-https://api.example.com}/mcp",
      "headers": {
        "Authorization": "Bearer \${API_KEY}"
      }
    }
  }
}`,
    {
      servers: [],
      skipped: [
        {
          name: "api-server",
          reason: `"url" contains the placeholder "\${API_BASE_URL:-https://api.example.com}": replace it with the server's address`,
        },
      ],
    },
  ],
  [
    "Claude Code `claude mcp add-json` single server object",
    `{"type":"http","url":"https://api.weather.com/mcp","headers":{"Authorization":"Bearer token"}}`,
    {
      servers: [
        remote("api-weather-com", "https://api.weather.com/mcp", {
          headers: { Authorization: "Bearer token" },
          placeholders: bearer("token"),
        }),
      ],
      skipped: [],
    },
  ],
  [
    "Claude Code .mcp.json with type stdio",
    `{
  "mcpServers": {
    "airtable": {
      "type": "stdio",
      "command": "npx",
      "args": ["-y", "airtable-mcp-server"],
      "env": { "AIRTABLE_API_KEY": "YOUR_KEY" }
    }
  }
}`,
    { servers: [], skipped: [{ name: "airtable", reason: STDIO }] },
  ],
  [
    "Cursor ~/.cursor/mcp.json remote server with headers",
    `{
  "mcpServers": {
    "server-name": {
      "url": "http://localhost:3000/mcp",
      "headers": {
        "API_KEY": "value"
      }
    }
  }
}`,
    {
      servers: [remote("server-name", "http://localhost:3000/mcp", { headers: { API_KEY: "value" } })],
      skipped: [],
    },
  ],
  [
    `Cursor mcp.json with \${env:…} interpolation`,
    `{
  "mcpServers": {
    "example": {
      "url": "https://api.example.com/mcp",
      "headers": {
        "Authorization": "Bearer \${env:MY_SERVICE_TOKEN}"
      }
    }
  }
}`,
    {
      servers: [
        remote("example", "https://api.example.com/mcp", {
          headers: { Authorization: `Bearer \${env:MY_SERVICE_TOKEN}` },
          placeholders: bearer(`\${env:MY_SERVICE_TOKEN}`),
        }),
      ],
      skipped: [],
    },
  ],
  [
    "Cursor SSE server: a /sse path with no type",
    `{
  "mcpServers": {
    "server-name": {
      "url": "http://localhost:3000/sse",
      "env": {
        "API_KEY": "value"
      }
    }
  }
}`,
    { servers: [remote("server-name", "http://localhost:3000/sse", { transport: "sse" })], skipped: [] },
  ],
  [
    "VS Code .vscode/mcp.json with comments, inputs, stdio and http servers",
    `{
  // 💡 Inputs are prompted on first server start, then stored securely by VS Code.
  "inputs": [
    {
      "type": "promptString",
      "id": "perplexity-key",
      "description": "Perplexity API Key",
      "password": true
    }
  ],
  "servers": {
    // https://github.com/ppl-ai/modelcontextprotocol/
    "Perplexity": {
      "type": "stdio",
      "command": "npx",
      "args": ["-y", "@modelcontextprotocol/server-perplexity-ask"],
      "env": {
        "PERPLEXITY_API_KEY": "\${input:perplexity-key}"
      }
    },
    // https://github.com/modelcontextprotocol/servers/tree/main/src/fetch
    "fetch": {
      "type": "stdio",
      "command": "uvx",
      "args": ["mcp-server-fetch"]
    },
    "my-remote-server": {
      "type": "http",
      "url": "http://api.contoso.com/mcp",
      "headers": {
        "Authorization": "Bearer \${input:api-key}"
      }
    }
  }
}`,
    {
      servers: [
        remote("my-remote-server", "http://api.contoso.com/mcp", {
          headers: { Authorization: `Bearer \${input:api-key}` },
          placeholders: bearer(`\${input:api-key}`),
        }),
      ],
      skipped: [
        { name: "Perplexity", reason: STDIO },
        { name: "fetch", reason: STDIO },
      ],
    },
  ],
  [
    "GitHub remote MCP server docs for VS Code (PAT through an input)",
    `{
  "servers": {
    "github": {
      "type": "http",
      "url": "https://api.githubcopilot.com/mcp/",
      "headers": {
        "Authorization": "Bearer \${input:github_mcp_pat}"
      }
    }
  },
  "inputs": [
    {
      "type": "promptString",
      "id": "github_mcp_pat",
      "description": "GitHub Personal Access Token",
      "password": true
    }
  ]
}`,
    {
      servers: [
        remote("github", "https://api.githubcopilot.com/mcp/", {
          headers: { Authorization: `Bearer \${input:github_mcp_pat}` },
          placeholders: bearer(`\${input:github_mcp_pat}`),
        }),
      ],
      skipped: [],
    },
  ],
  [
    "GitHub remote MCP server docs for Cursor (PAT written into the header)",
    `{
  "mcpServers": {
    "github": {
      "url": "https://api.githubcopilot.com/mcp/",
      "headers": {
        "Authorization": "Bearer YOUR_GITHUB_PAT"
      }
    }
  }
}`,
    {
      servers: [
        remote("github", "https://api.githubcopilot.com/mcp/", {
          headers: { Authorization: "Bearer YOUR_GITHUB_PAT" },
          placeholders: bearer("YOUR_GITHUB_PAT"),
        }),
      ],
      skipped: [],
    },
  ],
  [
    "Windsurf mcp_config.json: serverUrl, and the docs' <your-server-url> left in",
    `{
  "mcpServers": {
    "github": {
      "serverUrl": "https://api.githubcopilot.com/mcp/",
      "headers": {
        "Authorization": "Bearer \${env:GITHUB_PERSONAL_ACCESS_TOKEN}"
      }
    },
    "remote-http-mcp": {
      "serverUrl": "https://<your-server-url>/mcp",
      "headers": {
        "API_KEY": "value"
      }
    }
  }
}`,
    {
      servers: [
        remote("github", "https://api.githubcopilot.com/mcp/", {
          headers: { Authorization: `Bearer \${env:GITHUB_PERSONAL_ACCESS_TOKEN}` },
          placeholders: bearer(`\${env:GITHUB_PERSONAL_ACCESS_TOKEN}`),
        }),
      ],
      skipped: [
        {
          name: "remote-http-mcp",
          reason: `"serverUrl" contains the placeholder "<your-server-url>": replace it with the server's address`,
        },
      ],
    },
  ],
  [
    "Gemini CLI settings.json: httpUrl is streamable HTTP, url with /sse is SSE",
    `{
  "mcpServers": {
    "httpServerWithAuth": {
      "httpUrl": "http://localhost:3000/mcp",
      "headers": {
        "Authorization": "Bearer your-api-token"
      },
      "timeout": 5000
    },
    "sseServer": {
      "url": "http://localhost:8080/sse",
      "timeout": 30000
    }
  }
}`,
    {
      servers: [
        remote("httpServerWithAuth", "http://localhost:3000/mcp", {
          headers: { Authorization: "Bearer your-api-token" },
          placeholders: bearer("your-api-token"),
        }),
        remote("sseServer", "http://localhost:8080/sse", { transport: "sse" }),
      ],
      skipped: [],
    },
  ],
  [
    "Cline cline_mcp_settings.json: streamableHttp, alwaysAllow, disabled flags",
    `{
  "mcpServers": {
    "remote-server": {
      "type": "streamableHttp",
      "url": "https://your-server-url.com/mcp",
      "headers": {
        "Authorization": "Bearer your-token"
      },
      "alwaysAllow": ["tool3"],
      "disabled": false
    },
    "old-sse": {
      "url": "https://your-server-url.com/sse",
      "disabled": true
    },
    "local-server": {
      "command": "node",
      "args": ["/path/to/server.js"],
      "env": { "API_KEY": "your_api_key" },
      "alwaysAllow": ["tool1", "tool2"],
      "disabled": false
    }
  }
}`,
    {
      servers: [
        remote("remote-server", "https://your-server-url.com/mcp", {
          headers: { Authorization: "Bearer your-token" },
          placeholders: bearer("your-token"),
        }),
        remote("old-sse", "https://your-server-url.com/sse", { transport: "sse", enabled: false }),
      ],
      skipped: [{ name: "local-server", reason: STDIO }],
    },
  ],
  [
    "Zed settings.json: context_servers with comments",
    `// Zed settings
//
// For information on how to configure Zed, see the Zed
// documentation: https://zed.dev/docs/configuring-zed
{
  "theme": "One Dark",
  "context_servers": {
    /* a local server */
    "your-mcp-server": {
      "source": "custom",
      "command": "some-command",
      "args": ["arg-1", "arg-2"],
      "env": {}
    },
    "some-remote-server": {
      "source": "custom",
      "url": "https://mcp.example.com/mcp", // streamable HTTP
      "headers": { "Authorization": "Bearer <AUTH_TOKEN>" }
    }
  }
}`,
    {
      servers: [
        remote("some-remote-server", "https://mcp.example.com/mcp", {
          headers: { Authorization: "Bearer <AUTH_TOKEN>" },
          placeholders: bearer("<AUTH_TOKEN>"),
        }),
      ],
      skipped: [{ name: "your-mcp-server", reason: STDIO }],
    },
  ],
  [
    "Codex ~/.codex/config.toml",
    `[mcp_servers.figma]
url = "https://mcp.figma.com/mcp"
bearer_token_env_var = "FIGMA_OAUTH_TOKEN"`,
    {
      servers: [],
      skipped: [],
      problem: `this looks like TOML; paste JSON, such as {"mcpServers": {"name": {"url": "https://…"}}}.`,
    },
  ],
  [
    "Codex config.toml starting with a comment",
    `# MCP servers
[mcp_servers.context7]
command = "npx"
args = ["-y", "@upstash/context7-mcp"]`,
    {
      servers: [],
      skipped: [],
      problem: `this looks like TOML; paste JSON, such as {"mcpServers": {"name": {"url": "https://…"}}}.`,
    },
  ],
  [
    "Linear: the mcp-remote bridge is stdio; the direct SSE and HTTP URLs import",
    `{
  "mcpServers": {
    "linear-bridge": {
      "command": "npx",
      "args": ["-y", "mcp-remote", "https://mcp.linear.app/sse"]
    },
    "linear-sse": { "url": "https://mcp.linear.app/sse" },
    "linear": { "url": "https://mcp.linear.app/mcp" }
  }
}`,
    {
      servers: [
        remote("linear-sse", "https://mcp.linear.app/sse", { transport: "sse" }),
        remote("linear", "https://mcp.linear.app/mcp"),
      ],
      skipped: [{ name: "linear-bridge", reason: STDIO }],
    },
  ],
  [
    "Sentry, Notion and Atlassian remote servers (Atlassian through its /v1/sse endpoint)",
    `{
  "mcpServers": {
    "sentry": { "url": "https://mcp.sentry.dev/mcp" },
    "notion": { "url": "https://mcp.notion.com/mcp" },
    "notion-sse": { "type": "sse", "url": "https://mcp.notion.com/sse" },
    "atlassian": { "url": "https://mcp.atlassian.com/v1/sse" },
    "atlassian-bridge": { "command": "npx", "args": ["-y", "mcp-remote", "https://mcp.atlassian.com/v1/sse"] }
  }
}`,
    {
      servers: [
        remote("sentry", "https://mcp.sentry.dev/mcp"),
        remote("notion", "https://mcp.notion.com/mcp"),
        remote("notion-sse", "https://mcp.notion.com/sse", { transport: "sse" }),
        remote("atlassian", "https://mcp.atlassian.com/v1/sse", { transport: "sse" }),
      ],
      skipped: [{ name: "atlassian-bridge", reason: STDIO }],
    },
  ],
  [
    "Stripe: a placeholder secret key and a real-looking restricted key",
    `{
  "mcpServers": {
    "stripe": {
      "url": "https://mcp.stripe.com",
      "headers": { "Authorization": "Bearer sk_test_xxxxxxxxxxxxxxxx" }
    },
    "stripe-live": {
      "url": "https://mcp.stripe.com",
      "headers": { "Authorization": "Bearer rk_live_51Nq8cR2eZvKYlo2C0a9bQ7dLm3Xw" }
    }
  }
}`,
    {
      servers: [
        remote("stripe", "https://mcp.stripe.com", {
          headers: { Authorization: "Bearer sk_test_xxxxxxxxxxxxxxxx" },
          placeholders: bearer("sk_test_xxxxxxxxxxxxxxxx"),
        }),
        remote("stripe-live", "https://mcp.stripe.com", {
          headers: { Authorization: "Bearer rk_live_51Nq8cR2eZvKYlo2C0a9bQ7dLm3Xw" },
        }),
      ],
      skipped: [],
    },
  ],
];

const dialects: Case[] = [
  [
    "a bare map of name → server",
    `{ "sentry": { "url": "https://mcp.sentry.dev/mcp" }, "notion": { "url": "https://mcp.notion.com/mcp" } }`,
    {
      servers: [remote("sentry", "https://mcp.sentry.dev/mcp"), remote("notion", "https://mcp.notion.com/mcp")],
      skipped: [],
    },
  ],
  [
    "one server object without a name is named from its host",
    `{ "url": "https://mcp.example.com/mcp", "headers": { "X-Api-Key": "<YOUR_API_KEY>" } }`,
    {
      servers: [
        remote("mcp-example-com", "https://mcp.example.com/mcp", {
          headers: { "X-Api-Key": "<YOUR_API_KEY>" },
          placeholders: [{ header: "X-Api-Key", placeholder: "<YOUR_API_KEY>" }],
        }),
      ],
      skipped: [],
    },
  ],
  [
    "one server object with a name field keeps it",
    `{ "type": "url", "url": "https://mcp.example.com/sse", "name": "example" }`,
    {
      servers: [],
      skipped: [{ name: "example", reason: `unknown type "url": use "http" (streamable HTTP) or "sse"` }],
    },
  ],
  [
    "one stdio server object is reported under its command",
    `{ "command": "npx", "args": ["-y", "@modelcontextprotocol/server-everything"] }`,
    { servers: [], skipped: [{ name: "npx", reason: STDIO }] },
  ],
  [
    "a fragment copied from inside a config file, with its trailing comma",
    `"mcpServers": {
    "sentry": { "url": "https://mcp.sentry.dev/mcp" }
  },`,
    { servers: [remote("sentry", "https://mcp.sentry.dev/mcp")], skipped: [] },
  ],
  [
    "VS Code user settings.json nests the block under mcp",
    `{ "editor.fontSize": 14, "mcp": { "servers": { "github": { "type": "http", "url": "https://api.githubcopilot.com/mcp/" } } } }`,
    { servers: [remote("github", "https://api.githubcopilot.com/mcp/")], skipped: [] },
  ],
  [
    "transport as a string and as an object with its own url and headers",
    `{
  "mcpServers": {
    "a": { "url": "https://a.example.com/events", "transport": "sse" },
    "b": { "url": "https://b.example.com/sse", "transport": "streamable-http" },
    "c": { "transport": { "type": "sse", "url": "https://c.example.com/messages", "headers": { "X-Team": "core" } } }
  }
}`,
    {
      servers: [
        remote("a", "https://a.example.com/events", { transport: "sse" }),
        remote("b", "https://b.example.com/sse"),
        remote("c", "https://c.example.com/messages", { transport: "sse", headers: { "X-Team": "core" } }),
      ],
      skipped: [],
    },
  ],
  [
    "requestInit.headers, overridden case-insensitively by headers",
    `{
  "mcpServers": {
    "x": {
      "url": "https://x.example.com/mcp",
      "requestInit": { "headers": { "authorization": "Bearer old", "X-Region": "eu" } },
      "headers": { "Authorization": "Bearer \${X_TOKEN}" }
    }
  }
}`,
    {
      servers: [
        remote("x", "https://x.example.com/mcp", {
          headers: { Authorization: `Bearer \${X_TOKEN}`, "X-Region": "eu" },
          placeholders: bearer(`\${X_TOKEN}`),
        }),
      ],
      skipped: [],
    },
  ],
  [
    "httpUrl means streamable HTTP even on an /sse path; type spellings are case- and dash-insensitive",
    `{
  "mcpServers": {
    "g": { "httpUrl": "https://g.example.com/sse" },
    "h": { "type": "streamable-http", "url": "https://h.example.com/sse" },
    "i": { "type": "SSE", "url": "https://i.example.com/stream" },
    "j": { "url": "https://j.example.com/sse/" }
  }
}`,
    {
      servers: [
        remote("g", "https://g.example.com/sse"),
        remote("h", "https://h.example.com/sse"),
        remote("i", "https://i.example.com/stream", { transport: "sse" }),
        remote("j", "https://j.example.com/sse/", { transport: "sse" }),
      ],
      skipped: [],
    },
  ],
  [
    "a disabled entry imports switched off; enabled: false does too",
    `{
  "mcpServers": {
    "on": { "url": "https://on.example.com/mcp", "disabled": false },
    "off": { "url": "https://off.example.com/mcp", "disabled": true },
    "codex-off": { "url": "https://codex.example.com/mcp", "enabled": false }
  }
}`,
    {
      servers: [
        remote("on", "https://on.example.com/mcp"),
        remote("off", "https://off.example.com/mcp", { enabled: false }),
        remote("codex-off", "https://codex.example.com/mcp", { enabled: false }),
      ],
      skipped: [],
    },
  ],
  [
    "numeric and boolean header values are coerced to strings",
    `{ "mcpServers": { "n": { "url": "https://n.example.com/mcp", "headers": { "X-Timeout": 30, "X-Ratio": 0.5, "X-Debug": true } } } }`,
    {
      servers: [
        remote("n", "https://n.example.com/mcp", {
          headers: { "X-Timeout": "30", "X-Ratio": "0.5", "X-Debug": "true" },
        }),
      ],
      skipped: [],
    },
  ],
  [
    "markdown code fence around the paste",
    "```json\n" + `{ "mcpServers": { "sentry": { "url": "https://mcp.sentry.dev/mcp" } } }` + "\n```\n",
    { servers: [remote("sentry", "https://mcp.sentry.dev/mcp")], skipped: [] },
  ],
  [
    "trailing commas in objects and arrays",
    `{
  "mcpServers": {
    "sentry": { "url": "https://mcp.sentry.dev/mcp", "alwaysAllow": ["a", "b",], },
  },
}`,
    { servers: [remote("sentry", "https://mcp.sentry.dev/mcp")], skipped: [] },
  ],
  [
    "// and /* inside strings are not comments; comments between tokens are",
    `{ /* block */ "mcpServers": { // line
  "s": { "url": "https://s.example.com/mcp?a=/*b*/", "headers": { "X-Note": "// kept" } } } }`,
    {
      servers: [remote("s", "https://s.example.com/mcp?a=/*b*/", { headers: { "X-Note": "// kept" } })],
      skipped: [],
    },
  ],
];

const skippedEntries: Case[] = [
  [
    "mixed stdio and remote: the remote ones still import",
    `{
  "mcpServers": {
    "memory": { "command": "npx", "args": ["-y", "@modelcontextprotocol/server-memory"] },
    "sentry": { "url": "https://mcp.sentry.dev/mcp" },
    "git": { "command": "uvx", "args": ["mcp-server-git", "--repository", "."] },
    "notion": { "url": "https://mcp.notion.com/mcp" }
  }
}`,
    {
      servers: [remote("sentry", "https://mcp.sentry.dev/mcp"), remote("notion", "https://mcp.notion.com/mcp")],
      skipped: [
        { name: "memory", reason: STDIO },
        { name: "git", reason: STDIO },
      ],
    },
  ],
  [
    "duplicate names, literally and after trimming: the second is skipped",
    `{
  "mcpServers": {
    "github": { "url": "https://api.githubcopilot.com/mcp/" },
    "github": { "url": "https://example.com/other" },
    " sentry ": { "url": "https://mcp.sentry.dev/mcp" },
    "sentry": { "command": "npx" }
  }
}`,
    {
      servers: [remote("github", "https://api.githubcopilot.com/mcp/"), remote("sentry", "https://mcp.sentry.dev/mcp")],
      skipped: [
        { name: "github", reason: "duplicate name" },
        { name: "sentry", reason: "duplicate name" },
      ],
    },
  ],
  [
    "bad URLs",
    `{
  "mcpServers": {
    "words": { "url": "not a url" },
    "relative": { "url": "/mcp" },
    "empty": { "url": "" },
    "number": { "url": 8080 },
    "ftp": { "url": "ftp://files.example.com/mcp" },
    "padded": { "url": "  https://padded.example.com/mcp  " }
  }
}`,
    {
      servers: [remote("padded", "https://padded.example.com/mcp")],
      skipped: [
        {
          name: "words",
          reason: `"url" is not a valid URL ("not a url"): use the full address, such as "https://mcp.example.com/mcp"`,
        },
        {
          name: "relative",
          reason: `"url" is not a valid URL ("/mcp"): use the full address, such as "https://mcp.example.com/mcp"`,
        },
        {
          name: "empty",
          reason: `"url" is not a valid URL (""): use the full address, such as "https://mcp.example.com/mcp"`,
        },
        { name: "number", reason: `"url" must be a string such as "https://mcp.example.com/mcp"` },
        {
          name: "ftp",
          reason: `"url" must start with https:// (or http://), not ftp://: use the server's HTTP address`,
        },
      ],
    },
  ],
  [
    "ws:// and file:// schemes",
    `{ "mcpServers": { "socket": { "url": "ws://localhost:8080/mcp" }, "local": { "serverUrl": "file:///tmp/mcp.sock" } } }`,
    {
      servers: [],
      skipped: [
        {
          name: "socket",
          reason: `"url" must start with https:// (or http://), not ws://: use the server's HTTP address`,
        },
        {
          name: "local",
          reason: `"serverUrl" must start with https:// (or http://), not file://: use the server's HTTP address`,
        },
      ],
    },
  ],
  [
    "malformed entries: not an object, no url, empty name, unknown or non-string type",
    `{
  "mcpServers": {
    "string": "https://mcp.sentry.dev/mcp",
    "list": ["https://mcp.sentry.dev/mcp"],
    "nothing": { "headers": { "X": "y" } },
    "  ": { "url": "https://mcp.sentry.dev/mcp" },
    "websocket": { "type": "websocket", "url": "https://w.example.com/mcp" },
    "typed": { "type": 1, "url": "https://t.example.com/mcp" },
    "ok": { "url": "https://ok.example.com/mcp" }
  }
}`,
    {
      servers: [remote("ok", "https://ok.example.com/mcp")],
      skipped: [
        {
          name: "string",
          reason: `expected a server object such as {"url": "https://mcp.example.com/mcp"}, got a string ("https://mcp.sentry.dev/mcp")`,
        },
        { name: "list", reason: `expected a server object such as {"url": "https://mcp.example.com/mcp"}, got a list` },
        { name: "nothing", reason: `no "url": add the server's address, such as "url": "https://mcp.example.com/mcp"` },
        { name: "", reason: 'the name is empty: give the server a name such as "github"' },
        { name: "websocket", reason: `unknown type "websocket": use "http" (streamable HTTP) or "sse"` },
        { name: "typed", reason: `"type" must be a string: "http" (streamable HTTP) or "sse"` },
      ],
    },
  ],
  [
    "header values that are objects, arrays or null skip the entry; bad header names and headers too",
    `{
  "mcpServers": {
    "object": { "url": "https://a.example.com/mcp", "headers": { "X-Auth": { "token": "abc" } } },
    "array": { "url": "https://b.example.com/mcp", "headers": { "X-Scopes": ["read", "write"] } },
    "null": { "url": "https://c.example.com/mcp", "headers": { "X-Empty": null } },
    "spaced": { "url": "https://d.example.com/mcp", "headers": { "API Key": "abc" } },
    "list": { "url": "https://e.example.com/mcp", "headers": ["Authorization: Bearer abc"] },
    "newline": { "url": "https://f.example.com/mcp", "headers": { "X-A": "a\\r\\nX-B: b" } }
  }
}`,
    {
      servers: [],
      skipped: [
        { name: "object", reason: 'header "X-Auth" must be a string' },
        { name: "array", reason: 'header "X-Scopes" must be a string' },
        { name: "null", reason: 'header "X-Empty" must be a string' },
        { name: "spaced", reason: 'header name "API Key" is not valid: use letters, digits and "-"' },
        { name: "list", reason: `"headers" must be an object such as {"Authorization": "Bearer …"}` },
        { name: "newline", reason: 'header "X-A" must be on one line' },
      ],
    },
  ],
];

const problems: Case[] = [
  ["empty paste", "", { servers: [], skipped: [], problem: `The paste is empty. ${PASTE}` }],
  [
    "whitespace and an empty fence",
    "```json\n  \n```",
    { servers: [], skipped: [], problem: `The paste is empty. ${PASTE}` },
  ],
  [
    "plain text",
    "github https://api.githubcopilot.com/mcp/",
    {
      servers: [],
      skipped: [],
      problem: `Not valid JSON: unexpected "g" at line 1, column 1. ${PASTE}`,
    },
  ],
  [
    "missing closing brace",
    `{
  "mcpServers": {
    "sentry": { "url": "https://mcp.sentry.dev/mcp" }
  }`,
    {
      servers: [],
      skipped: [],
      problem: `Not valid JSON: expected "," or "}", found the end of the text (a closing } or ] may be missing) at line 4, column 4. ${PASTE}`,
    },
  ],
  [
    "missing comma between entries",
    `{
  "mcpServers": {
    "sentry": { "url": "https://mcp.sentry.dev/mcp" }
    "notion": { "url": "https://mcp.notion.com/mcp" }
  }
}`,
    {
      servers: [],
      skipped: [],
      problem: `Not valid JSON: expected "," or "}", found a quote (is a "," missing before it?) at line 4, column 5. ${PASTE}`,
    },
  ],
  [
    "curly quotes from a chat or a word processor",
    `{ “mcpServers”: {} }`,
    {
      servers: [],
      skipped: [],
      problem: `Not valid JSON: expected a quoted name, found a curly quote “ (use straight quotes ") at line 1, column 3. ${PASTE}`,
    },
  ],
  [
    "a top-level list",
    `[{ "url": "https://mcp.sentry.dev/mcp" }]`,
    { servers: [], skipped: [], problem: `Expected a JSON object, got a list. ${PASTE}` },
  ],
  [
    "mcpServers that is not an object",
    `{ "mcpServers": [{ "url": "https://mcp.sentry.dev/mcp" }] }`,
    {
      servers: [],
      skipped: [],
      problem: `"mcpServers" must be an object mapping server names to servers, got a list. ${PASTE}`,
    },
  ],
  [
    "an empty mcpServers block",
    `{ "mcpServers": {} }`,
    { servers: [], skipped: [], problem: `Found no servers. ${PASTE}` },
  ],
  [
    "some other JSON document",
    `{ "name": "my-app", "version": "1.0.0", "private": true }`,
    { servers: [], skipped: [], problem: `Found no MCP servers in this JSON. ${PASTE}` },
  ],
  [
    "an unterminated block comment",
    `{ "mcpServers": {} /* note`,
    { servers: [], skipped: [], problem: `Not valid JSON: unterminated /* comment at line 1, column 20. ${PASTE}` },
  ],
];

const pastes: Case[] = [
  [
    "YAML is recognised and answered with a request for the JSON form",
    "mcpServers:\n  github:\n    url: https://api.githubcopilot.com/mcp/\n",
    {
      servers: [],
      skipped: [],
      problem: `This looks like YAML. Paste the JSON form of the same servers, such as {"mcpServers": {"name": {"url": "https://…"}}}: most clients document both, and a YAML-to-JSON converter gives it.`,
    },
  ],
  [
    "YAML list under a comment",
    "# servers\n- name: github\n  url: https://api.githubcopilot.com/mcp/\n",
    { servers: [], skipped: [], problem: expect.stringContaining("This looks like YAML") as unknown as string },
  ],
  [
    "two names differing only in case clash within the paste",
    `{"mcpServers": {"GitHub": {"url": "https://a.example.com/mcp"}, "github": {"url": "https://b.example.com/mcp"}}}`,
    {
      servers: [remote("GitHub", "https://a.example.com/mcp")],
      skipped: [
        {
          name: "github",
          reason: 'duplicate name: "GitHub" earlier in this paste differs only in case; rename one of them',
        },
      ],
    },
  ],
  [
    "a whole opencode config: servers under mcp, $schema ignored, remote and local types",
    `{
  "$schema": "https://opencode.ai/config.json",
  "theme": "dark",
  "mcp": {
    "context7": { "type": "remote", "url": "https://mcp.context7.com/mcp", "enabled": true },
    "local-files": { "type": "local", "command": ["npx", "-y", "server-filesystem"] }
  }
}`,
    {
      servers: [remote("context7", "https://mcp.context7.com/mcp")],
      skipped: [{ name: "local-files", reason: STDIO }],
    },
  ],
  [
    "servers under an unknown wrapper key are found, never $schema as a server",
    `{"$schema": "https://example.com/schema.json", "tools": {"docs": {"url": "https://docs.example.com/mcp"}}}`,
    { servers: [remote("docs", "https://docs.example.com/mcp")], skipped: [] },
  ],
];

describe("parseMcpImport", () => {
  describe.each([
    ["client documentation", clientDocs],
    ["dialects", dialects],
    ["skipped entries", skippedEntries],
    ["whole-paste problems", problems],
    ["pastes from the first hour", pastes],
  ])("%s", (_group, cases) => {
    it.each(cases)("%s", (_title, text, expected) => {
      expect(parseMcpImport(text)).toEqual(expected);
    });
  });

  it("imports 32 of 40 servers and skips the other 8", () => {
    const names = Array.from({ length: 40 }, (_, i) => `server-${i + 1}`);
    const text = JSON.stringify({
      mcpServers: Object.fromEntries(names.map((name) => [name, { url: `https://${name}.example.com/mcp` }])),
    });
    expect(parseMcpImport(text)).toEqual({
      servers: names.slice(0, 32).map((name) => remote(name, `https://${name}.example.com/mcp`)),
      skipped: names
        .slice(32)
        .map((name) => ({ name, reason: "at most 32 servers per paste; import the rest separately" })),
    });
  });

  it("counts only importable servers toward the 32", () => {
    const entries: [string, object][] = [["local", { command: "npx" }]];
    for (let i = 1; i <= 33; i++) entries.push([`s${i}`, { url: `https://s${i}.example.com/mcp` }]);
    const result = parseMcpImport(JSON.stringify({ servers: Object.fromEntries(entries) }));
    expect(result).toEqual({
      servers: Array.from({ length: 32 }, (_, i) => remote(`s${i + 1}`, `https://s${i + 1}.example.com/mcp`)),
      skipped: [
        { name: "local", reason: STDIO },
        { name: "s33", reason: "at most 32 servers per paste; import the rest separately" },
      ],
    });
  });
});

describe("placeholdersIn", () => {
  it.each([
    [`Bearer \${env:TOKEN}`, [`\${env:TOKEN}`]],
    [`Bearer \${TOKEN}`, [`\${TOKEN}`]],
    ["$TOKEN", ["$TOKEN"]],
    ["Bearer $GITHUB_TOKEN", ["$GITHUB_TOKEN"]],
    [`Bearer \${input:github_token}`, [`\${input:github_token}`]],
    ["<YOUR_API_KEY>", ["<YOUR_API_KEY>"]],
    ["Bearer <your-token>", ["<your-token>"]],
    ["Bearer <your api key>", ["<your api key>"]],
    ["YOUR_API_KEY", ["YOUR_API_KEY"]],
    ["your-api-key-here", ["your-api-key-here"]],
    ["api_key_here", ["api_key_here"]],
    ["XXXX", ["XXXX"]],
    ["Bearer sk-xxxxxxxxxxxx", ["sk-xxxxxxxxxxxx"]],
    ["Bearer <token>", ["<token>"]],
    [`Bearer \${GITHUB_TOKEN}`, [`\${GITHUB_TOKEN}`]],
    ["Bearer YOUR_TOKEN", ["YOUR_TOKEN"]],
    ["Bearer GITHUB_TOKEN", ["GITHUB_TOKEN"]],
    ["Bearer {{STRIPE_SECRET_KEY}}", ["{{STRIPE_SECRET_KEY}}"]],
    [`Basic \${env:USER}:\${env:PASS}`, [`\${env:USER}`, `\${env:PASS}`]],
    ["Bearer ghp_16C7e42F292c6912E7710c838347Ae178B4a", []],
    ["lin_api_Xq3mB7k2Tz9pLw4Rj8sYv1Nc6Hd0Fg5Ae2", []],
    ["7fK2mQ9xLp4RtV8wZ3bN6cJ1hY5sD0gA", []],
    ["application/json", []],
    ["2025-06-18", []],
    ["price$5", []],
  ])("%s → %j", (value, expected) => {
    expect(placeholdersIn(value)).toEqual(expected);
  });
});
