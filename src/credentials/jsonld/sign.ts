import * as vc from "@digitalbazaar/vc";
import { Ed25519Signature2018 } from "@digitalbazaar/ed25519-signature-2018";
import { Ed25519Signature2020 } from "@digitalbazaar/ed25519-signature-2020";
import { Ed25519VerificationKey2018 } from "@digitalbazaar/ed25519-verification-key-2018";
import { Ed25519VerificationKey2020 } from "@digitalbazaar/ed25519-verification-key-2020";
import { ed25519 } from "@noble/curves/ed25519.js";
import { base58 } from "@scure/base";
import { createDocumentLoader } from "./document_loader.ts";
import { ed25519Multibase } from "./ed25519_public_key.ts";
import type { DocumentLoader } from "./types.ts";

/** The Linked Data proof suites this module signs and verifies. */
export type LdProofSuiteName = "Ed25519Signature2018" | "Ed25519Signature2020";

/** An Ed25519 key pair with its verification method id and controller DID. */
export interface LdSigningKeyPair {
  /** Verification method id, e.g. `did:key:z6Mk…#z6Mk…`. */
  id: string;
  /** Controller DID; must be the credential's issuer. */
  controller: string;
  /** Raw 32-byte Ed25519 public key. */
  publicKey: Uint8Array;
  /** 32-byte Ed25519 seed, or 64-byte seed‖public key. */
  secretKey: Uint8Array;
}

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

const MULTICODEC_ED25519_PRIV = [0x80, 0x26] as const;

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
  const { keyPair, suite: suiteName, date } = options;
  const seed = seedOf(keyPair);
  const derived = ed25519.getPublicKey(seed);
  if (!bytesEqual(derived, keyPair.publicKey)) {
    throw new Error("keyPair.publicKey does not belong to keyPair.secretKey");
  }
  const secret64 = concat(seed, derived);
  const documentLoader = options.documentLoader ?? createDocumentLoader();

  let suite: unknown;
  if (suiteName === "Ed25519Signature2018") {
    const key = await Ed25519VerificationKey2018.from({
      id: keyPair.id,
      controller: keyPair.controller,
      publicKeyBase58: base58.encode(derived),
      privateKeyBase58: base58.encode(secret64),
    });
    suite = new Ed25519Signature2018({ key, date });
  } else if (suiteName === "Ed25519Signature2020") {
    const key = await Ed25519VerificationKey2020.from({
      id: keyPair.id,
      controller: keyPair.controller,
      publicKeyMultibase: ed25519Multibase(derived),
      privateKeyMultibase: `z${
        base58.encode(concat(Uint8Array.from(MULTICODEC_ED25519_PRIV), secret64))
      }`,
    });
    suite = new Ed25519Signature2020({ key, date });
  } else {
    throw new Error(`unsupported proof suite ${String(suiteName)}`);
  }

  const signed: unknown = await vc.issue({
    credential: structuredClone(credential),
    suite,
    documentLoader,
  });
  return signed as SignedCredential;
}

function seedOf(keyPair: LdSigningKeyPair): Uint8Array {
  const { secretKey } = keyPair;
  if (secretKey.length === 32) return secretKey;
  if (secretKey.length === 64) return secretKey.subarray(0, 32);
  throw new Error("keyPair.secretKey must be 32 (seed) or 64 (seed‖public key) bytes");
}

function concat(a: Uint8Array, b: Uint8Array): Uint8Array {
  const out = new Uint8Array(a.length + b.length);
  out.set(a, 0);
  out.set(b, a.length);
  return out;
}

function bytesEqual(a: Uint8Array, b: Uint8Array): boolean {
  return a.length === b.length && a.every((x, i) => x === b[i]);
}
