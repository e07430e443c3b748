import { describe, expect, it } from "vitest";
import { nameAsCalled, renameToolMentions } from "./called-name";

describe("renameToolMentions", () => {
  it("names the tool as the client called it in the upstream's argument error", () => {
    expect(
      renameToolMentions(
        "MCP error -32602: Input validation error: Invalid arguments for tool echo: expected string at message",
        "echo",
        "everything_echo",
      ),
    ).toBe(
      "MCP error -32602: Input validation error: Invalid arguments for tool everything_echo: expected string at message",
    );
    expect(renameToolMentions('Unknown argument for Tool "get-sum".', "get-sum", "everything_get-sum")).toBe(
      'Unknown argument for Tool "everything_get-sum".',
    );
  });

  it("leaves other words, longer names and a text without the name alone", () => {
    expect(renameToolMentions("echo: the message to echo back", "echo", "x_echo")).toBe(
      "echo: the message to echo back",
    );
    expect(renameToolMentions("Invalid arguments for tool echo-all", "echo", "x_echo")).toBe(
      "Invalid arguments for tool echo-all",
    );
    expect(renameToolMentions("Invalid arguments for tool echoes", "echo", "x_echo")).toBe(
      "Invalid arguments for tool echoes",
    );
    expect(renameToolMentions("nothing here", "echo", "x_echo")).toBe("nothing here");
  });

  it("takes a name with regular-expression characters literally", () => {
    expect(renameToolMentions("Invalid arguments for tool a.b", "a.b", "s_a_b")).toBe(
      "Invalid arguments for tool s_a_b",
    );
    expect(renameToolMentions("Invalid arguments for tool axb", "a.b", "s_a_b")).toBe("Invalid arguments for tool axb");
  });
});

describe("nameAsCalled", () => {
  const error = {
    isError: true,
    content: [
      { type: "text", text: "Invalid arguments for tool echo" },
      { type: "image", data: "AAAA", mimeType: "image/png" },
    ],
  };

  it("renames in an error result's text blocks and keeps the other blocks", () => {
    expect(nameAsCalled(error, "echo", "everything_echo")).toEqual({
      isError: true,
      content: [
        { type: "text", text: "Invalid arguments for tool everything_echo" },
        { type: "image", data: "AAAA", mimeType: "image/png" },
      ],
    });
  });

  it("returns a successful result, or one served under its own name, as it is", () => {
    const ok = { content: [{ type: "text", text: "Invalid arguments for tool echo" }] };
    expect(nameAsCalled(ok, "echo", "everything_echo")).toBe(ok);
    expect(nameAsCalled(error, "echo", "echo")).toBe(error);
  });
});
