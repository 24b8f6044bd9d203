/**
 * The types a JSON-LD credential answers DCQL `type_values` with. OpenID4VP 1.0 (appendix B.1)
 * writes them as fully expanded IRIs (`https://www.w3.org/2018/credentials#VerifiableCredential`),
 * which is what Credo's verifier checks the presentation against; verifiers that still write the
 * short names (`VerifiableCredential`) are met too. Expansion is `jsonld`'s, over the service's
 * contexts (bundled, and kept under `JSONLD_CONTEXT_ALLOW`), remembered per stored credential.
 *
 * @module
 */
import jsonld from "jsonld";
import { Lru } from "../../base/mod.ts";
import type { DocumentLoader } from "./types.ts";

const cache = new Lru<string[]>(2000);

/**
 * The credential's `type` values as written and as expanded IRIs. `loader` reads its contexts (the
 * bundled ones and those kept under `JSONLD_CONTEXT_ALLOW`); when one cannot be read, the written
 * types are all there is to match, and they are not remembered, so the next request tries again.
 */
export async function ldpTypes(
  id: string,
  credential: Record<string, unknown>,
  loader: DocumentLoader,
): Promise<string[]> {
  const hit = cache.get(id);
  if (hit) return hit;
  const written = ([] as unknown[]).concat(credential.type ?? []).map(String);
  try {
    const doc = await jsonld.expand(
      { "@context": credential["@context"], type: credential.type },
      { documentLoader: loader },
    ) as { "@type"?: string[] }[];
    const types = [...new Set([...written, ...doc[0]?.["@type"] ?? []])];
    cache.set(id, types);
    return types;
  } catch {
    return written;
  }
}
