import { describe, expect, it } from "vitest";
import { sensitiveReason, sensitiveTools } from "./sensitive-tools";

const tool = (name: string, description = "", title?: string) => ({ name, description, title });

describe("sensitiveReason", () => {
  it("names a tool that reads the environment, however its name is spelled", () => {
    for (const t of [
      tool("get-env", "Returns all environment variables, helpful for debugging MCP server configuration"),
      tool("get_env"),
      tool("getEnv"),
      tool("print", "Prints process.env"),
      tool("load", "Loads the project's .env file"),
      tool("config", "Reads settings with dotenv"),
      tool("show", "", "Print Environment Tool"),
    ])
      expect(sensitiveReason(t), t.name + t.description).toBe("environment");
  });

  it("names a tool that reads secrets, credentials, keys or auth tokens", () => {
    for (const t of [
      tool("read-secret", "Reads a secret from the vault"),
      tool("vault", "Returns stored passwords"),
      tool("aws", "Lists the AWS credentials in use"),
      tool("keys", "Shows the API key of the account"),
      tool("ssh", "Reads your SSH keys"),
      tool("auth", "Returns the current access token"),
      tool("session", "Refresh tokens for the user"),
    ])
      expect(sensitiveReason(t), t.name + t.description).toBe("secrets");
  });

  it("leaves ordinary tools alone, including words that only contain the sensitive ones", () => {
    for (const t of [
      tool("echo", "Echoes back the input string"),
      tool("get-sum", "Returns the sum of two numbers"),
      tool("sample", "Asks the client's model for up to maxTokens tokens"),
      tool("events", "Lists upcoming events and venues"),
      tool("inventory", "Counts the inventory of the envoy's warehouse"),
      tool("keyword-search", "Searches by keyword in the secretary's notes"),
      tool("passport", "Checks a passport number"),
    ])
      expect(sensitiveReason(t), t.name + t.description).toBeNull();
  });
});

describe("sensitiveTools", () => {
  it("keeps the sensitive ones in their order", () => {
    const tools = [tool("echo", "Echo"), tool("get-env", "Environment"), tool("read-secret", "A secret"), tool("sum")];
    expect(sensitiveTools(tools).map((t) => t.name)).toEqual(["get-env", "read-secret"]);
  });
});
