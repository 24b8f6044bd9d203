/**
 * A W3C JSON-LD verifiable presentation of one stored credential (`ldp_vc` answers), signed by the
 * org's agent key (its did:key, which verifiers resolve on their own) with the service's one
 * presentation signer (`signPresentation` of `credentials/`, as DIDComm Present Proof uses it):
 * proof purpose `authentication`, `challenge` the request's nonce, `domain` the client
 * identifier. A JSON-LD credential's proof covers the whole credential, so it is presented whole.
 *
 * The proof type is Ed25519Signature2018 unless the verifier's metadata restricts it (OpenID4VP
 * 1.0 appendix B.1.3: `vp_formats_supported.ldp_vc.proof_type_values` and `cryptosuite_values`;
 * drafts before it: `vp_formats.ldp_vp.proof_type`): then the first type the service signs that
 * the verifier takes, `DataIntegrityProof` being `eddsa-rdfc-2022`. DCQL's `ldp_vc` `meta` has
 * only `type_values`: the proof type is the metadata's.
 *
 * @module
 */
import {
  type DocumentLoader,
  type LdProofSuiteName,
  presentationContext,
  presentationSuite,
  SIGNABLE_PROOF_TYPES,
  signPresentation,
} from "../credentials/mod.ts";
import { conflict } from "../errors.ts";
import type { OrgSigningKey } from "./holder_key.ts";

type Json = Record<string, unknown>;
const obj = (v: unknown): Json | undefined =>
  typeof v === "object" && v !== null && !Array.isArray(v) ? v as Json : undefined;
const strings = (v: unknown): string[] | undefined => Array.isArray(v) ? v.map(String) : undefined;

/**
 * The proof type of an `ldp_vc` presentation for a verifier with `clientMetadata` (see the module
 * doc); 409 naming what it accepts when the service signs none of it.
 */
export function ldpProofType(clientMetadata?: Json): LdProofSuiteName {
  const current = obj(obj(clientMetadata?.vp_formats_supported)?.ldp_vc);
  const draft = obj(obj(clientMetadata?.vp_formats)?.ldp_vp);
  const proofTypes = strings(current?.proof_type_values) ?? strings(draft?.proof_type);
  const cryptosuites = strings(current?.cryptosuite_values);
  const suite = presentationSuite(proofTypes, cryptosuites);
  if (suite) return suite;
  throw conflict(
    `The verifier takes JSON-LD presentations signed with ${proofTypes!.join(" or ")}` +
      (cryptosuites ? ` (cryptosuites ${cryptosuites.join(", ")})` : "") +
      ` in its client_metadata; this service signs with ${SIGNABLE_PROOF_TYPES.join(", ")} ` +
      "(DataIntegrityProof: eddsa-rdfc-2022).",
  );
}

/** Signs a presentation of `credential` for a verifier. */
export async function presentLdp(
  credential: Record<string, unknown>,
  key: OrgSigningKey,
  opts: {
    challenge: string;
    domain: string;
    documentLoader: DocumentLoader;
    /** Default Ed25519Signature2018 (see {@link ldpProofType}). */
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
