import * as vc from "@digitalbazaar/vc";
import { createDocumentLoader } from "./document_loader.ts";
import { createSigningSuite, type LdProofSuiteName, type LdSigningKeyPair } from "./suite.ts";
import type { DocumentLoader } from "./types.ts";

export type { LdProofSuiteName, LdSigningKeyPair } from "./suite.ts";

/** Options of {@link signCredential}. */
export interface SignCredentialOptions {
  keyPair: LdSigningKeyPair;
  suite: LdProofSuiteName;
  /** Proof `created` time (default: now). */
  date?: Date;
  /** Document loader (default: an offline loader over the bundled contexts). */
  documentLoader?: DocumentLoader;
}

/** A credential carrying at least one proof. */
export type SignedCredential = Record<string, unknown> & { proof: Record<string, unknown> };

/**
 * Adds an `assertionMethod` Linked Data proof (Ed25519Signature2018 or
 * Ed25519Signature2020) to a credential with `@digitalbazaar/vc` `issue`.
 * The input is not mutated. For Ed25519Signature2020 the suite context is
 * appended to `@context` when missing; v1 credentials without `issuanceDate`
 * get one. Throws when the key pair is inconsistent or the credential is not
 * a valid credential (e.g. a context URL that is not bundled).
 */
export async function signCredential(
  credential: object,
  options: SignCredentialOptions,
): Promise<SignedCredential> {
  const suite = await createSigningSuite(options.keyPair, options.suite, options.date);
  const signed: unknown = await vc.issue({
    credential: structuredClone(credential),
    suite,
    documentLoader: options.documentLoader ?? createDocumentLoader(),
  });
  return signed as SignedCredential;
}
