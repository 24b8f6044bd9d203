/**
 * A W3C JSON-LD verifiable presentation of one stored credential (`ldp_vc` answers), signed with
 * `@digitalbazaar/vc` by the org's agent key (its did:key, which verifiers resolve on their own):
 * proof purpose `authentication`, `challenge` the request's nonce, `domain` the client
 * identifier. A JSON-LD credential's proof covers the whole credential, so it is presented whole.
 *
 * @module
 */
import * as vc from "@digitalbazaar/vc";
import { Ed25519Signature2018 } from "@digitalbazaar/ed25519-signature-2018";
import { Ed25519VerificationKey2018 } from "@digitalbazaar/ed25519-verification-key-2018";
import { base58 } from "@scure/base";
import type { DocumentLoader } from "../credentials/mod.ts";
import type { OrgSigningKey } from "./holder_key.ts";

const V1 = "https://www.w3.org/2018/credentials/v1";

/** Signs a presentation of `credential` for a verifier. */
export async function presentLdp(
  credential: Record<string, unknown>,
  key: OrgSigningKey,
  opts: { challenge: string; domain: string; documentLoader: DocumentLoader; date?: Date },
): Promise<Record<string, unknown>> {
  const contexts = ([] as unknown[]).concat(credential["@context"] ?? []);
  const presentation = vc.createPresentation({
    verifiableCredential: [credential],
    holder: key.did,
    version: contexts[0] === V1 ? 1.0 : 2.0,
  });
  const suite = new Ed25519Signature2018({
    key: await Ed25519VerificationKey2018.from({
      id: key.kid,
      controller: key.did,
      publicKeyBase58: base58.encode(key.key.publicKey),
      privateKeyBase58: base58.encode(key.key.secretKey),
    }),
    date: opts.date,
  });
  return await vc.signPresentation({
    presentation,
    suite,
    challenge: opts.challenge,
    domain: opts.domain,
    documentLoader: opts.documentLoader,
  }) as Record<string, unknown>;
}
