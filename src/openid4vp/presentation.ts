/**
 * The `vp_token` of an answer: for each chosen credential query, the presentation of its stored
 * credential. An SD-JWT VC discloses exactly the query's claim paths and carries a key binding
 * JWT signed by the key in its `cnf`; a JSON-LD credential goes whole into a VP signed by the org's
 * did:key, with the proof type the verifier's metadata takes (`ldp_proof_type.ts`).
 *
 * @module
 */
import type { Wallet } from "../agents/mod.ts";
import { createDocumentLoader, type RemoteContexts, resolveDidWith } from "../credentials/mod.ts";
import type { DidResolver } from "../did/mod.ts";
import type { Candidate } from "./dcql_match.ts";
import { kbSignerFor, orgAgentKey, type OrgSigningKey } from "./holder_key.ts";
import { ldpProofType } from "./ldp_proof_type.ts";
import { presentLdp, presentSdJwt } from "../credentials/mod.ts";
import type { Oid4vpLibs } from "./libs.ts";
import type { QueryMatch, StoredPresentationRequest } from "./record.ts";
import type { VpToken } from "./response.ts";

/** What building a presentation needs. */
export interface PresentationDeps {
  wallet: Wallet;
  resolver: DidResolver;
  now: () => number;
  /** JSON-LD contexts kept under `JSONLD_CONTEXT_ALLOW` (a credential on one is presented too). */
  contexts?: RemoteContexts;
}

/** What is presented: the request, the chosen match of each query, the org's credentials. */
interface Answer {
  orgId: string;
  stored: StoredPresentationRequest;
  chosen: Map<string, QueryMatch>;
  credentials: Candidate[];
}

/**
 * The presentations of the chosen credentials, by credential query. The agent's private key is
 * opened for them and wiped after, as every other signer in the service does.
 */
export async function buildVpToken(
  deps: PresentationDeps,
  libs: Oid4vpLibs,
  a: Answer,
): Promise<VpToken> {
  const key = await orgAgentKey(deps.wallet, a.orgId);
  try {
    return await present(deps, libs, a, key);
  } finally {
    key.key.secretKey.fill(0);
  }
}

async function present(
  deps: PresentationDeps,
  libs: Oid4vpLibs,
  a: Answer,
  key: OrgSigningKey,
): Promise<VpToken> {
  const iat = Math.floor(deps.now() / 1000);
  const { nonce, audience } = a.stored.params;
  const resolveDid = resolveDidWith(deps.resolver);
  const vpToken: VpToken = {};
  for (const [queryId, match] of a.chosen) {
    const c = a.credentials.find((x) => x.id === match.credentialId && x.format === match.format)!;
    if (c.format === "dc+sd-jwt") {
      const signer = await kbSignerFor(deps.wallet, a.orgId, c.claims.cnf, key, c.id);
      vpToken[queryId] = [
        await presentSdJwt(libs, c.compact!, c.claims, match.disclosedClaims, {
          nonce,
          aud: audience,
          iat,
          signer,
        }),
      ];
    } else {
      vpToken[queryId] = [
        await presentLdp(c.claims, key, {
          challenge: nonce,
          domain: audience,
          suite: ldpProofType(a.stored.params.clientMetadata),
          documentLoader: createDocumentLoader({ resolveDid, remote: deps.contexts }),
        }),
      ];
    }
  }
  return vpToken;
}
