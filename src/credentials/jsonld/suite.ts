/**
 * The signature suites of this service for one Ed25519 key pair, as `@digitalbazaar/vc` takes
 * them: Ed25519Signature2018, Ed25519Signature2020, and `DataIntegrityProof` with the
 * `eddsa-rdfc-2022` cryptosuite (loaded on first use, `data_integrity.ts`). One place that turns an
 * org key into a signing suite for credentials and presentations alike, and that says which suite
 * answers a verifier's list of proof types ({@link presentationSuite}).
 *
 * @module
 */
import { Ed25519Signature2018 } from "@digitalbazaar/ed25519-signature-2018";
import { Ed25519Signature2020 } from "@digitalbazaar/ed25519-signature-2020";
import { Ed25519VerificationKey2018 } from "@digitalbazaar/ed25519-verification-key-2018";
import { Ed25519VerificationKey2020 } from "@digitalbazaar/ed25519-verification-key-2020";
import { ed25519 } from "@noble/curves/ed25519.js";
import { base58 } from "@scure/base";
import { eddsaSigningSuite, SIGNING_CRYPTOSUITE } from "./data_integrity.ts";
import { ed25519Multibase } from "./ed25519_public_key.ts";

/**
 * The proof types this service signs with (`DataIntegrityProof`: with `eddsa-rdfc-2022`, the
 * cryptosuite of its Ed25519 keys).
 */
export type LdProofSuiteName =
  | "Ed25519Signature2018"
  | "Ed25519Signature2020"
  | "DataIntegrityProof";

/** {@link LdProofSuiteName}s in this service's order of preference for presentations. */
export const SIGNABLE_PROOF_TYPES: readonly LdProofSuiteName[] = [
  "Ed25519Signature2018",
  "Ed25519Signature2020",
  "DataIntegrityProof",
];

/**
 * The proof type to sign a presentation with for a verifier that accepts the proof types
 * `proofTypes` and, for `DataIntegrityProof`, the cryptosuites `cryptosuites` (either undefined:
 * no restriction): Ed25519Signature2018 when the verifier does not restrict the proof type, else
 * the first of {@link SIGNABLE_PROOF_TYPES} it accepts; undefined when it accepts none of them.
 */
export function presentationSuite(
  proofTypes?: readonly string[],
  cryptosuites?: readonly string[],
): LdProofSuiteName | undefined {
  if (proofTypes === undefined) return SIGNABLE_PROOF_TYPES[0];
  return SIGNABLE_PROOF_TYPES.find((t) =>
    proofTypes.includes(t) &&
    (t !== "DataIntegrityProof" || cryptosuites === undefined ||
      cryptosuites.includes(SIGNING_CRYPTOSUITE))
  );
}

/** An Ed25519 key pair with its verification method id and controller DID. */
export interface LdSigningKeyPair {
  /** Verification method id, e.g. `did:key:z6Mk…#z6Mk…`. */
  id: string;
  /** Controller DID (the credential's issuer, or the presentation's holder). */
  controller: string;
  /** Raw 32-byte Ed25519 public key. */
  publicKey: Uint8Array;
  /** 32-byte Ed25519 seed, or 64-byte seed‖public key. */
  secretKey: Uint8Array;
}

const MULTICODEC_ED25519_PRIV = [0x80, 0x26] as const;

/**
 * A signing suite of `suiteName` for `keyPair` (proof `created` = `date`, default now). Throws
 * when the key pair is inconsistent or the suite is not one of {@link LdProofSuiteName}.
 */
export async function createSigningSuite(
  keyPair: LdSigningKeyPair,
  suiteName: LdProofSuiteName,
  date?: Date,
): Promise<unknown> {
  const seed = seedOf(keyPair);
  const derived = ed25519.getPublicKey(seed);
  if (!bytesEqual(derived, keyPair.publicKey)) {
    throw new Error("keyPair.publicKey does not belong to keyPair.secretKey");
  }
  if (suiteName === "DataIntegrityProof") return await eddsaSigningSuite(keyPair.id, seed, date);
  const secret64 = concat(seed, derived);
  if (suiteName === "Ed25519Signature2018") {
    const key = await Ed25519VerificationKey2018.from({
      id: keyPair.id,
      controller: keyPair.controller,
      publicKeyBase58: base58.encode(derived),
      privateKeyBase58: base58.encode(secret64),
    });
    return new Ed25519Signature2018({ key, date });
  }
  if (suiteName === "Ed25519Signature2020") {
    const key = await Ed25519VerificationKey2020.from({
      id: keyPair.id,
      controller: keyPair.controller,
      publicKeyMultibase: ed25519Multibase(derived),
      privateKeyMultibase: `z${
        base58.encode(concat(Uint8Array.from(MULTICODEC_ED25519_PRIV), secret64))
      }`,
    });
    return new Ed25519Signature2020({ key, date });
  }
  throw new Error(`unsupported proof suite ${String(suiteName)}`);
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
