import * as vc from "@digitalbazaar/vc";
import { Ed25519Signature2018 } from "@digitalbazaar/ed25519-signature-2018";
import { Ed25519Signature2020 } from "@digitalbazaar/ed25519-signature-2020";
import { dataIntegrityVerifySuites, isVerifiedDataIntegrityProof } from "./data_integrity.ts";
import { createDocumentLoader, findLoaderError } from "./document_loader.ts";
import { CredentialIssuerPurpose, issuerIdOf } from "./issuer_purpose.ts";
import type { DocumentLoader, RemoteContexts, ResolveDid } from "./types.ts";
import { isObject } from "../../base/mod.ts";

/** Options of {@link verifyCredential}. */
export interface VerifyCredentialOptions {
  /** Resolves the issuer's (and any verification method's) DID. */
  resolveDid: ResolveDid;
  /**
   * A loader to reuse across verifications (keeps resolved DID documents:
   * "warm"). Default: a fresh {@link createDocumentLoader} per call.
   */
  documentLoader?: DocumentLoader;
  /** Contexts that are not bundled (the `JSONLD_CONTEXT_ALLOW` store), for the default loader. */
  contexts?: RemoteContexts;
  /**
   * Time used for the validity checks (`issuanceDate` / `expirationDate` of VC 1.1, `validFrom` /
   * `validUntil` of VC 2.0, a proof's `expires`); default now.
   */
  now?: Date;
}

/** Outcome of {@link verifyCredential}; never throws. */
export interface VerifyCredentialResult {
  verified: boolean;
  /** Why verification failed (absent when verified). */
  error?: string;
  /** Issuer id (`issuer` or `issuer.id`), "" when missing. */
  issuer: string;
  /** The proof's verification method id, when the proof names one. */
  verificationMethod?: string;
}

const LD_SUITES = new Set(["Ed25519Signature2018", "Ed25519Signature2020"]);
const supported = (proof: Record<string, unknown>) =>
  LD_SUITES.has(String(proof.type)) || isVerifiedDataIntegrityProof(proof);

/**
 * Verifies a JSON-LD verifiable credential (VC Data Model 1.1 or 2.0) offline with
 * `@digitalbazaar/vc` (canonicalization by `jsonld` / `rdf-canonize`): an Ed25519Signature2018 /
 * Ed25519Signature2020 proof, or a `DataIntegrityProof` of `eddsa-rdfc-2022` or `ecdsa-rdfc-2019`
 * (P-256, P-384; loaded on first use, `data_integrity.ts`). Checks: the credential data model
 * (issuer, types, subject, and the validity period: `issuanceDate` / `expirationDate` of 1.1,
 * `validFrom` / `validUntil` of 2.0), `proofPurpose` `assertionMethod`, the signature against the
 * key dereferenced through this service's resolver, that the key is listed in its controller's
 * `assertionMethod`, and the issuer rule of `issuer_purpose.ts` (a DID issuer is the key's
 * controller).
 *
 * A `credentialStatus` is not checked here: a proof is about the credential as signed, and the
 * status (revoked, suspended) is a separate, changing fact that the `status` feature checks
 * against the issuer's status list on receipt, on demand and on a schedule.
 */
export async function verifyCredential(
  credential: object,
  options: VerifyCredentialOptions,
): Promise<VerifyCredentialResult> {
  const doc = credential as Record<string, unknown>;
  const issuer = issuerIdOf(doc.issuer);
  const proofs = ([] as unknown[]).concat(doc.proof ?? []).filter(isObject);
  const proof = proofs.find(supported) ?? proofs[0];
  const vm = proof?.verificationMethod;
  const verificationMethod = typeof vm === "string"
    ? vm
    : isObject(vm) && typeof vm.id === "string"
    ? vm.id
    : undefined;
  const fail = (error: string): VerifyCredentialResult => ({
    verified: false,
    error,
    issuer,
    ...(verificationMethod ? { verificationMethod } : {}),
  });

  if (!issuer) return fail("credential has no issuer");
  if (!proof) return fail("credential has no proof");
  if (!supported(proof)) {
    return fail(
      proof.type === "DataIntegrityProof"
        ? `unsupported Data Integrity cryptosuite ${JSON.stringify(proof.cryptosuite)}`
        : `unsupported proof type ${JSON.stringify(proof.type)}`,
    );
  }
  if (proof.proofPurpose !== "assertionMethod") {
    return fail(
      `proofPurpose must be "assertionMethod", got ${JSON.stringify(proof.proofPurpose)}`,
    );
  }
  if (!verificationMethod) return fail("proof has no verificationMethod");

  try {
    const suite: unknown[] = [new Ed25519Signature2018(), new Ed25519Signature2020()];
    if (proofs.some(isVerifiedDataIntegrityProof)) suite.push(...await dataIntegrityVerifySuites());
    const result = await vc.verifyCredential({
      credential,
      suite,
      purpose: new CredentialIssuerPurpose({ now: options.now }),
      documentLoader: options.documentLoader ?? createDocumentLoader({
        resolveDid: options.resolveDid,
        remote: options.contexts,
      }),
      // The status is the status feature's (see above); without this the library refuses any
      // credential that has a `credentialStatus`.
      checkStatus: () => Promise.resolve({ verified: true }),
      ...(options.now ? { now: options.now } : {}),
    }) as { verified?: boolean; error?: unknown; results?: Array<{ error?: unknown }> };
    if (result.verified === true) {
      return { verified: true, issuer, verificationMethod };
    }
    const reason = result.error ?? result.results?.find((r) => r.error)?.error;
    return fail(describe(reason) || "proof not verified");
  } catch (error: unknown) {
    return fail(describe(error) || "verification failed");
  }
}

/**
 * Flattens jsonld-signatures / jsonld error wrappers into one readable line.
 * A document loader refusal is reported by its own message alone, and a
 * jsonld safe-mode error names the offending event (e.g. an undefined term).
 */
function describe(error: unknown, depth = 0): string {
  const loaderError = findLoaderError(error);
  if (loaderError) return loaderError.message;
  if (depth > 5 || error === undefined || error === null) return "";
  if (!isObject(error) && !(error instanceof Error)) return String(error);
  const e = error as Record<string, unknown> & { message?: unknown };
  const parts: string[] = [];
  if (typeof e.message === "string" && e.message) parts.push(e.message);
  const details = isObject(e.details) ? e.details : undefined;
  const event = isObject(details?.event) ? details.event : undefined;
  if (event) {
    parts.push(`${String(event.message ?? event.code)} ${JSON.stringify(event.details ?? {})}`);
  }
  for (const inner of Array.isArray(e.errors) ? e.errors : []) {
    const text = describe(inner, depth + 1);
    if (text) parts.push(text);
  }
  const cause = e.cause ?? details?.cause;
  if (cause) {
    const text = describe(cause, depth + 1);
    if (text) parts.push(text);
  }
  return [...new Set(parts)].join(": ");
}

/**
 * The proof check of a JSON-LD credential as other features call it (the status lists' own
 * credentials): {@link verifyCredential} with the service's resolver, contexts and clock.
 */
export function ldVerifier(
  opts: Omit<VerifyCredentialOptions, "now"> & { now: () => number },
): (credential: Record<string, unknown>) => Promise<VerifyCredentialResult> {
  const { now, ...rest } = opts;
  return (credential) => verifyCredential(credential, { ...rest, now: new Date(now()) });
}
