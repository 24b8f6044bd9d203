/**
 * Verification method vocabulary shared by the key-derived methods: the key representations, the
 * JSON-LD context of each verification method type, and the `@context` of a document. No curve
 * code, so that the early lane (`did/lite.ts`) can load it.
 */
import type { KeyType } from "./multicodec.ts";
import type { VerificationMethod } from "../types.ts";

/**
 * How verification methods carry their key:
 * - `base58`: Ed25519VerificationKey2018 / X25519KeyAgreementKey2019 / EcdsaSecp256k1VerificationKey2019 /
 *   Bls12381G2Key2020 with `publicKeyBase58`; NIST curves (no base58 suite) as JsonWebKey2020.
 * - `jwk`: JsonWebKey2020 with `publicKeyJwk` for every key type.
 * - `multikey`: Multikey with `publicKeyMultibase`.
 */
export type KeyRepresentation = "base58" | "jwk" | "multikey";

/** The `publicKeyBase58` verification method type of each key type that has one. */
export const BASE58_TYPES: Partial<Record<KeyType, string>> = {
  "Ed25519": "Ed25519VerificationKey2018",
  "X25519": "X25519KeyAgreementKey2019",
  "secp256k1": "EcdsaSecp256k1VerificationKey2019",
  "Bls12381G2": "Bls12381G2Key2020",
};

/** JSON-LD context of each verification method type written by this library. */
export const TYPE_CONTEXTS: Readonly<Record<string, string>> = {
  Ed25519VerificationKey2018: "https://w3id.org/security/suites/ed25519-2018/v1",
  X25519KeyAgreementKey2019: "https://w3id.org/security/suites/x25519-2019/v1",
  EcdsaSecp256k1VerificationKey2019: "https://w3id.org/security/suites/secp256k1-2019/v1",
  Bls12381G2Key2020: "https://w3id.org/security/suites/bls12381-2020/v1",
  JsonWebKey2020: "https://w3id.org/security/suites/jws-2020/v1",
  Multikey: "https://w3id.org/security/multikey/v1",
  Ed25519VerificationKey2020: "https://w3id.org/security/suites/ed25519-2020/v1",
  X25519KeyAgreementKey2020: "https://w3id.org/security/suites/x25519-2020/v1",
};

/** The DID Core v1 context. */
export const DID_CONTEXT_V1 = "https://www.w3.org/ns/did/v1";

/** `@context` for a document with the given verification methods: DID Core, then one per type. */
export function contextFor(methods: readonly VerificationMethod[]): string[] {
  const out = [DID_CONTEXT_V1];
  for (const m of methods) {
    const c = TYPE_CONTEXTS[m.type];
    if (c && !out.includes(c)) out.push(c);
  }
  return out;
}
