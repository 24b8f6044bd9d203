/**
 * A W3C JSON-LD verifiable presentation of one stored credential (`ldp_vc` answers), signed by the
 * org's agent key (its did:key, which verifiers resolve on their own) with the service's one
 * presentation signer (`signPresentation` of `credentials/`, as DIDComm Present Proof uses it):
 * proof purpose `authentication`, `challenge` the request's nonce, `domain` the client
 * identifier. A JSON-LD credential's proof covers the whole credential, so it is presented whole.
 * The presentation is VC 2.0 when the credential is, else VC 1.1 (`presentationContext`); its proof
 * type is the caller's choice (default Ed25519Signature2018; `DataIntegrityProof` signs
 * `eddsa-rdfc-2022`).
 *
 * @module
 */
import { presentationContext, signPresentation } from "./sign_presentation.ts";
import type { LdProofSuiteName } from "./suite.ts";
import type { DocumentLoader } from "./types.ts";

/** The org's agent key that signs: its did:key, the verification method id and the opened key. */
export interface LdpSigningKey {
  did: string;
  kid: string;
  key: { publicKey: Uint8Array; secretKey: Uint8Array };
}

/** Signs a presentation of `credential` for a verifier. */
export async function presentLdp(
  credential: Record<string, unknown>,
  key: LdpSigningKey,
  opts: {
    challenge: string;
    domain: string;
    documentLoader: DocumentLoader;
    /** The proof type; default Ed25519Signature2018. */
    suite?: LdProofSuiteName;
  },
): Promise<Record<string, unknown>> {
  const presentation = {
    "@context": [presentationContext([credential])],
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
    suite: opts.suite ?? "Ed25519Signature2018",
    challenge: opts.challenge,
    domain: opts.domain,
    documentLoader: opts.documentLoader,
  });
}
