import { renderSkillDocument, replaceBody, replaceDescription } from "@loadout/api/domain/skills/document-edit";
import { docNameFor } from "@loadout/api/domain/skills/names";
import type { SkillKind } from "./types";

const encoder = new TextEncoder();

export function utf8Bytes(text: string): number {
  return encoder.encode(text).byteLength;
}

export function documentFileName(kind: SkillKind): string {
  return docNameFor(kind);
}

/** The description limit counts characters (code points), as the API does, not UTF-16 units. */
export function characterCount(text: string): number {
  return [...text].length;
}

type Stored = { document: string; description: string; body: string };

/**
 * The SKILL.md / PERSONA.md the API will store, written by the API's own rules: a new item's
 * document from its fields, an existing one with the description and body spliced into the
 * stored text. Null when the text cannot be written that way (the API then says why on save).
 */
export function nextDocument(input: {
  name: string;
  description: string;
  body: string;
  stored: Stored | null;
}): string | null {
  try {
    if (!input.stored) {
      return renderSkillDocument({ name: input.name || "name", description: input.description, body: input.body });
    }
    let text = input.stored.document;
    if (input.body !== input.stored.body) text = replaceBody(text, input.body);
    if (input.description !== input.stored.description) text = replaceDescription(text, input.description);
    return text;
  } catch {
    return null;
  }
}

/** The UTF-8 size of that document, or an estimate from the changed parts when it cannot be written. */
export function documentBytes(input: {
  name: string;
  description: string;
  body: string;
  stored: Stored | null;
}): number {
  const text = nextDocument(input);
  if (text !== null) return utf8Bytes(text);
  const base = input.stored ? utf8Bytes(input.stored.document) - utf8Bytes(input.stored.body) : 0;
  return base + utf8Bytes(input.body) + utf8Bytes(input.description);
}
