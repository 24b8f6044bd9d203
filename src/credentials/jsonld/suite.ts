/**
 * The Ed25519 Linked Data signature suites of this service (Ed25519Signature2018 and
 * Ed25519Signature2020) for one key pair, as `@digitalbazaar/vc` takes them: one place that turns
 * an org key into a signing suite for credentials and presentations alike.
 *
 * @module
 */
import { Ed25519Signature2018 } from "@digitalbazaar/ed25519-signature-2018";
import { Ed25519Signature2020 } from "@digitalbazaar/ed25519-signature-2020";
import { Ed25519VerificationKey2018 } from "@digitalbazaar/ed25519-verification-key-2018";
import { Ed25519VerificationKey2020 } from "@digitalbazaar/ed25519-verification-key-2020";
import { ed25519 } from "@noble/curves/ed25519.js";
import { base58 } from "@scure/base";
import { ed25519Multibase } from "./ed25519_public_key.ts";

/** The Linked Data proof suites this service signs and verifies. */
export type LdProofSuiteName = "Ed25519Signature2018" | "Ed25519Signature2020";

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
