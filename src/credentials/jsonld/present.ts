/**
 * A W3C JSON-LD verifiable presentation of one stored credential (`ldp_vc` answers), signed by the
 * org's agent key (its did:key, which verifiers resolve on their own) with the service's one
 * presentation signer (`signPresentation` of `credentials/`, as DIDComm Present Proof uses it):
 * proof purpose `authentication`, `challenge` the request's nonce, `domain` the client
 * identifier. A JSON-LD credential's proof covers the whole credential, so it is presented whole.
 *
 * @module
 */
import { signPresentation } from "./sign_presentation.ts";
import type { DocumentLoader } from "./types.ts";

/** The org's agent key that signs: its did:key, the verification method id and the opened key. */
export interface LdpSigningKey {
  did: string;
  kid: string;
  key: { publicKey: Uint8Array; secretKey: Uint8Array };
}

const V1 = "https://www.w3.org/2018/credentials/v1";
const V2 = "https://www.w3.org/ns/credentials/v2";

/** Signs a presentation of `credential` for a verifier. */
export async function presentLdp(
  credential: Record<string, unknown>,
  key: LdpSigningKey,
  opts: { challenge: string; domain: string; documentLoader: DocumentLoader },
): Promise<Record<string, unknown>> {
  const contexts = ([] as unknown[]).concat(credential["@context"] ?? []);
  const presentation = {
    "@context": [contexts[0] === V2 ? V2 : V1],
    type: ["VerifiablePresentation"],
    holder: key.did,
    verifiableCredential: [credential],
  };
  return await signPresentation(presentation, {
    keyPair: {
      id: key.kid,
      controller: key.did,
      publicKey: key.key.publicKey,
      secretKey: key.key.secretKey,
    },
    suite: "Ed25519Signature2018",
    challenge: opts.challenge,
    domain: opts.domain,
    documentLoader: opts.documentLoader,
  });
}
