/**
 * Presentation Exchange 1.0's `schema` of an input descriptor (`[{uri, required?}]`). PE 1.0
 * (Input Evaluation, step 1): "The URI for the schema of the candidate input MUST match one of
 * the Input Descriptor schema object uri values exactly". What that URI is for a W3C JSON-LD
 * credential the spec leaves open, and verifiers read it differently: ACA-Py compares the
 * credential's types as expanded IRIs (`https://www.w3.org/2018/credentials#VerifiableCredential`,
 * the absolute URIs of its JSON-LD types) and its `credentialSchema` ids; the PE library (and so
 * Credo) compares `@context` URLs, `credentialSchema` ids and the types as written. A credential
 * meets a descriptor's `schema` here when one of all these equals one of its uris, and every uri
 * marked `required: true` is among them; the library is then given the descriptor without
 * `schema`, so its narrower reading does not undo the match.
 *
 * @module
 */
import { isObject } from "../base/mod.ts";

type Json = Record<string, unknown>;

/** A descriptor's `schema` objects (PE 1.0), or undefined when it has none (PE 2.0 has none). */
export function schemaFilter(
  descriptor: Json,
): { uris: string[]; required: string[] } | undefined {
  if (!Array.isArray(descriptor.schema)) return undefined;
  const entries = descriptor.schema.filter(isObject).filter((s) => typeof s.uri === "string");
  return {
    uris: entries.map((s) => String(s.uri)),
    required: entries.filter((s) => s.required === true).map((s) => String(s.uri)),
  };
}

/** The descriptor as the PE library is given it: without `schema`, which is checked here. */
export function withoutSchema<T extends Json>(descriptor: T): T {
  const { schema: _schema, ...rest } = descriptor;
  return rest as T;
}

/** The URIs a credential answers `schema` with, apart from its expanded types. */
function writtenUris(credential: Json): string[] {
  const contexts = ([] as unknown[]).concat(credential["@context"] ?? []);
  const schemas = ([] as unknown[]).concat(credential.credentialSchema ?? []);
  return [
    ...contexts.filter((c) => typeof c === "string"),
    ...schemas.filter(isObject).map((s) => s.id).filter((id) => typeof id === "string"),
    ...([] as unknown[]).concat(credential.type ?? []).map(String),
  ] as string[];
}

/**
 * Whether `credential` meets the `schema` filter. `expandedTypes` gives its types as IRIs (and as
 * written); it is called only when the written URIs do not settle it.
 */
export async function meetsSchema(
  credential: Json,
  filter: { uris: string[]; required: string[] },
  expandedTypes: () => Promise<string[]>,
): Promise<boolean> {
  const settled = (have: ReadonlySet<string>) =>
    filter.uris.some((u) => have.has(u)) && filter.required.every((u) => have.has(u));
  const written = new Set(writtenUris(credential));
  if (settled(written)) return true;
  return settled(new Set([...written, ...await expandedTypes()]));
}
