/**
 * The proof purpose a received credential's proof is checked with: `assertionMethod`, plus the
 * issuer rule of this holder.
 *
 * What the specifications decide. VC Data Model 2.0 ("Algorithms: Verification") makes
 * verification the securing mechanism's proof and a conforming document; it returns the
 * verification method's controller and leaves to validation how that controller relates to
 * `issuer` ("Validation: Issuer": the controller is "typically the respective issuer"; some
 * ecosystems use lists of verified issuers instead). VC Data Integrity 1.0 ("Relationship to
 * Verifiable Credentials") names matching the controller with `issuer` as one way to make that
 * association "in some use cases".
 * `@digitalbazaar/vc`'s `CredentialIssuancePurpose` applies that check to every issuer, which is
 * why `vc.verifyCredential` refuses the W3C's own Data Integrity vectors (issuer
 * `https://vc.example/issuers/5678`, signed by a did:key) where `jsigs.verify` with an
 * `AssertionProofPurpose` accepts them: the vectors test the proof, not an issuer binding.
 *
 * This holder's rule, for every suite alike:
 * - the verification method must be listed under `assertionMethod` of its controller's document
 *   (the proof purpose, as `AssertionProofPurpose` checks it);
 * - an issuer that is a DID must be that controller: a DID names the keys that speak for it, so a
 *   key another DID controls cannot issue in its name;
 * - an issuer that is not a DID (an `https:` URL, as VC 2.0's examples write it) has no controller
 *   document this service can read, so nothing binds it to the key: the proof is checked and
 *   the issuer is kept as written, the association left to the verifier's validation;
 * - a revoked verification method, or a proof past its `expires`, does not verify (the Ed25519
 *   2020 suite already refuses the first; `DataIntegrityProof` checks neither).
 *
 * @module
 */
import jsigs from "jsonld-signatures";
import { isObject } from "../../base/mod.ts";

const { AssertionProofPurpose } = jsigs.purposes;

type Json = Record<string, unknown>;

/** What jsonld-signatures hands a purpose's `validate`. */
interface ValidateOptions {
  document: Json;
  verificationMethod: Json;
  [k: string]: unknown;
}

/** The issuer's id (`issuer` or `issuer.id`), "" when missing. */
export function issuerIdOf(issuer: unknown): string {
  if (typeof issuer === "string") return issuer;
  if (isObject(issuer) && typeof issuer.id === "string") return issuer.id;
  return "";
}

/** `assertionMethod` with this holder's issuer rule (see the module doc). */
export class CredentialIssuerPurpose extends AssertionProofPurpose {
  readonly #now: Date;

  constructor(options: { now?: Date } = {}) {
    super();
    this.#now = options.now ?? new Date();
  }

  async validate(
    proof: Json,
    options: ValidateOptions,
  ): Promise<{ valid: boolean; error?: unknown; controller?: Json }> {
    const result = await super.validate(proof, options);
    if (!result.valid) return result;
    try {
      const vm = options.verificationMethod;
      if (vm.revoked !== undefined) {
        throw new Error(`the verification method ${String(vm.id)} has been revoked`);
      }
      if (typeof proof.expires === "string" && Date.parse(proof.expires) < this.#now.getTime()) {
        throw new Error(`the proof expired at ${proof.expires}`);
      }
      const issuer = issuerIdOf(options.document.issuer);
      const controller = String(result.controller?.id ?? "");
      if (issuer.startsWith("did:") && controller !== issuer) {
        throw new Error(
          `Credential issuer must match the verification method controller: the issuer ${issuer} ` +
            `is a DID, and ${String(vm.id)} is controlled by ${controller}`,
        );
      }
      return result;
    } catch (error) {
      return { valid: false, error };
    }
  }
}
