/**
 * The types a JSON-LD credential answers DCQL `type_values` with. OpenID4VP 1.0 (appendix B.1)
 * writes them as fully expanded IRIs (`https://www.w3.org/2018/credentials#VerifiableCredential`),
 * which is what Credo's verifier checks the presentation against; verifiers that still write the
 * short names (`VerifiableCredential`) are met too. Expansion is `jsonld`'s, over the offline
 * document loader (bundled contexts only), remembered per stored credential.
 *
 * @module
 */
import jsonld from "jsonld";
import { createDocumentLoader } from "../credentials/mod.ts";
import { Lru } from "../lru.ts";

const loader = createDocumentLoader();
const cache = new Lru<string[]>(2000);

/** The credential's `type` values as written and as expanded IRIs. */
export async function ldpTypes(id: string, credential: Record<string, unknown>): Promise<string[]> {
  const hit = cache.get(id);
  if (hit) return hit;
  const written = ([] as unknown[]).concat(credential.type ?? []).map(String);
  let expanded: string[] = [];
  try {
    const doc = await jsonld.expand(
      { "@context": credential["@context"], type: credential.type },
      { documentLoader: loader },
    ) as { "@type"?: string[] }[];
    expanded = doc[0]?.["@type"] ?? [];
  } catch {
    // A context that is not bundled: the written types are all there is to match.
  }
  const types = [...new Set([...written, ...expanded])];
  cache.set(id, types);
  return types;
}
