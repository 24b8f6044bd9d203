/**
 * The proof type of an `ldp_vc` presentation for a verifier: Ed25519Signature2018 unless the
 * verifier's metadata restricts it (OpenID4VP 1.0 appendix B.1.3:
 * `vp_formats_supported.ldp_vc.proof_type_values` and `cryptosuite_values`; drafts before it:
 * `vp_formats.ldp_vp.proof_type`): then the first type the service signs that the verifier takes
 * (`credentials/`' `presentationSuite`), `DataIntegrityProof` being `eddsa-rdfc-2022`. DCQL's
 * `ldp_vc` `meta` has only `type_values`: the proof type is the metadata's.
 *
 * @module
 */
import { conflict, obj, strings } from "../base/mod.ts";
import {
  type LdProofSuiteName,
  presentationSuite,
  SIGNABLE_PROOF_TYPES,
} from "../credentials/mod.ts";

/**
 * The proof type of an `ldp_vc` presentation for a verifier with `clientMetadata` (see the module
 * doc); 409 naming what it accepts when the service signs none of it.
 */
export function ldpProofType(clientMetadata?: Record<string, unknown>): LdProofSuiteName {
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
