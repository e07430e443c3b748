/**
 * A JSONC reader: JSON plus line and block comments and trailing commas, as VS Code and Zed
 * configs allow. Also reads a fragment copied from inside a config file (`"mcpServers": {…}`
 * without the outer braces). Written here because `JSON.parse` keeps only the last of two equal
 * keys (a duplicate server must be reported) and gives no line and column on every runtime.
 */

export type Json = null | boolean | number | string | Json[] | JsonObject;

export class JsonObject {
  constructor(readonly entries: (readonly [string, Json])[]) {}
  /** The last value under `key`, as `JSON.parse` would keep it. */
  get(key: string): Json | undefined {
    let found: Json | undefined;
    for (const [name, value] of this.entries) if (name === key) found = value;
    return found;
  }
}

export class JsoncError extends Error {}

const MAX_DEPTH = 64;
const BLANK = /(?:[\s\uFEFF]+|\/\/[^\n]*)/y;
const NUMBER = /-?(?:0|[1-9]\d*)(?:\.\d+)?(?:[eE][+-]?\d+)?/y;
const ESCAPES: Record<string, string> = { '"': '"', "\\": "\\", "/": "/", b: "\b", f: "\f", n: "\n", r: "\r", t: "\t" };

export class JsoncReader {
  private pos = 0;
  constructor(private readonly text: string) {}

  document(): Json {
    this.skip();
    const start = this.pos;
    if (this.text[start] === '"') {
      this.string();
      this.skip();
      const fragment = this.text[this.pos] === ":";
      this.pos = start;
      if (fragment) return this.members(null, 0);
    }
    const value = this.value(0);
    this.skip();
    if (this.pos < this.text.length) this.fail("unexpected text after the end of the JSON");
    return value;
  }

  private value(depth: number): Json {
    if (depth > MAX_DEPTH) this.fail("nested too deeply");
    const ch = this.text[this.pos];
    if (ch === "{") {
      this.pos++;
      return this.members("}", depth + 1);
    }
    if (ch === "[") {
      this.pos++;
      const items: Json[] = [];
      while (!this.close("]")) {
        items.push(this.value(depth + 1));
        this.separator("]");
      }
      return items;
    }
    if (ch === '"') return this.string();
    for (const [word, literal] of [
      ["true", true],
      ["false", false],
      ["null", null],
    ] as const) {
      if (this.text.startsWith(word, this.pos)) {
        this.pos += word.length;
        return literal;
      }
    }
    NUMBER.lastIndex = this.pos;
    const number = NUMBER.exec(this.text);
    if (number) {
      this.pos += number[0].length;
      return Number(number[0]);
    }
    return this.fail(`unexpected ${this.found()}`);
  }

  /** Object members up to `closing`, or to the end of the text for a fragment. */
  private members(closing: "}" | null, depth: number): JsonObject {
    const entries: [string, Json][] = [];
    while (!this.close(closing)) {
      if (this.text[this.pos] !== '"') this.fail(`expected a quoted name, found ${this.found()}`);
      const key = this.string();
      this.skip();
      if (this.text[this.pos] !== ":") this.fail(`expected ":" after "${key}"`);
      this.pos++;
      this.skip();
      entries.push([key, this.value(depth)]);
      this.separator(closing);
    }
    return new JsonObject(entries);
  }

  /** Skips blanks; consumes `closing` (or, for null, reports the end of the text) if it is next. */
  private close(closing: "}" | "]" | null): boolean {
    this.skip();
    if (closing === null) return this.pos >= this.text.length;
    if (this.text[this.pos] !== closing) return false;
    this.pos++;
    return true;
  }

  private separator(closing: "}" | "]" | null): void {
    this.skip();
    if (this.text[this.pos] === ",") this.pos++;
    else if (closing === null ? this.pos < this.text.length : this.text[this.pos] !== closing) {
      this.fail(`expected "," or "${closing ?? "end"}", found ${this.found()}`);
    }
  }

  private string(): string {
    let out = "";
    for (let i = this.pos + 1; i < this.text.length; i++) {
      const ch = this.text[i];
      if (ch === '"') {
        this.pos = i + 1;
        return out;
      }
      if (ch === "\n") break;
      if (ch !== "\\") {
        out += ch;
        continue;
      }
      const next = this.text[++i] ?? "";
      const hex = this.text.slice(i + 1, i + 5);
      if (next === "u" && /^[0-9a-fA-F]{4}$/.test(hex)) {
        out += String.fromCharCode(Number.parseInt(hex, 16));
        i += 4;
      } else if (ESCAPES[next] !== undefined) out += ESCAPES[next];
      else {
        this.pos = i - 1;
        this.fail(`invalid escape "\\${next}" in a string`);
      }
    }
    return this.fail("unterminated string (a closing quote is missing)");
  }

  /** Whitespace (including the non-breaking spaces of copied web pages) and comments. */
  private skip(): void {
    for (;;) {
      BLANK.lastIndex = this.pos;
      const rest = BLANK.exec(this.text);
      if (rest) {
        this.pos += rest[0].length;
      } else if (this.text.startsWith("/*", this.pos)) {
        const end = this.text.indexOf("*/", this.pos + 2);
        if (end < 0) this.fail("unterminated /* comment");
        this.pos = end + 2;
      } else return;
    }
  }

  private found(): string {
    const ch = this.text[this.pos];
    if (ch === undefined) return "the end of the text (a closing } or ] may be missing)";
    if (ch === "“" || ch === "”") return `a curly quote ${ch} (use straight quotes ")`;
    if (ch === "'") return `' (JSON strings use double quotes ")`;
    if (ch === '"') return 'a quote (is a "," missing before it?)';
    return `"${ch}"`;
  }

  private fail(message: string): never {
    const before = this.text.slice(0, this.pos).split("\n");
    const line = before.length;
    const column = (before[before.length - 1] ?? "").length + 1;
    throw new JsoncError(`${message} at line ${line}, column ${column}`);
  }
}
