import { base58, base64urlnopad } from "@scure/base";
import type { LdVerificationMethod } from "./types.ts";

const MULTICODEC_ED25519_PUB = [0xed, 0x01] as const;

/**
 * Extracts the raw 32-byte Ed25519 public key of a verification method,
 * whatever way it is written: `publicKeyBase58` (Ed25519VerificationKey2018),
 * `publicKeyMultibase` (Ed25519VerificationKey2020 / Multikey, base58btc with the
 * ed25519-pub multicodec header) or `publicKeyJwk` (OKP / Ed25519).
 * Returns `null` when the method carries no Ed25519 key.
 */
export function ed25519PublicKeyOf(vm: LdVerificationMethod): Uint8Array | null {
  try {
    if (vm.type === "Ed25519VerificationKey2018" && typeof vm.publicKeyBase58 === "string") {
      return exact32(base58.decode(vm.publicKeyBase58));
    }
    if (typeof vm.publicKeyMultibase === "string" && vm.publicKeyMultibase.startsWith("z")) {
      const bytes = base58.decode(vm.publicKeyMultibase.slice(1));
      if (bytes[0] === MULTICODEC_ED25519_PUB[0] && bytes[1] === MULTICODEC_ED25519_PUB[1]) {
        return exact32(bytes.subarray(2));
      }
      // Ed25519VerificationKey2020 always has the header; a bare key is not valid.
      return null;
    }
    const jwk = vm.publicKeyJwk;
    if (jwk && jwk.kty === "OKP" && jwk.crv === "Ed25519" && typeof jwk.x === "string") {
      return exact32(base64urlnopad.decode(jwk.x));
    }
  } catch {
    return null;
  }
  return null;
}

/** Encodes a raw Ed25519 public key as an Ed25519VerificationKey2020 `publicKeyMultibase`. */
export function ed25519Multibase(publicKey: Uint8Array): string {
  const bytes = new Uint8Array(2 + publicKey.length);
  bytes.set(MULTICODEC_ED25519_PUB, 0);
  bytes.set(publicKey, 2);
  return `z${base58.encode(bytes)}`;
}

function exact32(bytes: Uint8Array): Uint8Array | null {
  return bytes.length === 32 ? bytes : null;
}
