/** Reading the generated OpenAPI document, for the suites that walk every operation in it. */
export type Json = Record<string, unknown>;

/** A schema, with a `$ref` to the document's components followed. */
export function resolveRef(doc: Json, schema: unknown): Json {
  const s = (schema ?? {}) as Json;
  if (typeof s.$ref === "string") {
    const name = s.$ref.split("/").pop() ?? "";
    return ((doc.components as Json).schemas as Json)[name] as Json;
  }
  return s;
}
