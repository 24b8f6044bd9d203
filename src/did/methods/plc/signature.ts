/**
 * PLC operation signatures: ECDSA over SHA-256 of the unsigned operation's DAG-CBOR, by a P-256
 * or secp256k1 key written as a did:key (compressed point), the 64-byte `r‖s` form in unpadded
 * base64url. As the PLC specification and its reference implementations require: the encoding is
 * canonical (no padding characters, no line breaks, zero padding bits), the signature is low-S
 * (a signature and its high-S twin are never both valid), and DER is not accepted.
 *
 * @module
 */
import { p256 } from "@noble/curves/nist.js";
import { secp256k1 } from "@noble/curves/secp256k1.js";
import { base64urlnopad } from "@scure/base";
import { decodeMultibaseKey } from "../../keys/multicodec.ts";

const CURVES = { "P-256": p256, "secp256k1": secp256k1 } as const;

/** A rotation key, parsed. */
export interface RotationKey {
  curve: keyof typeof CURVES;
  /** The uncompressed point (65 bytes). */
  publicKey: Uint8Array;
}

/** A did:key that can sign PLC operations (P-256 or secp256k1, compressed), or why not. */
export function parseRotationKey(didKey: string): RotationKey | string {
  if (!didKey.startsWith("did:key:")) return `${JSON.stringify(didKey)} is not a did:key`;
  const key = decodeMultibaseKey(didKey.slice("did:key:".length));
  if (!key.ok) return `${didKey} is not a did:key (${key.message})`;
  const { keyType, publicKey } = key.value;
  if (keyType !== "P-256" && keyType !== "secp256k1") {
    return `${didKey} is a ${keyType} key; PLC keys are P-256 or secp256k1`;
  }
  if (publicKey.length !== 33) return `${didKey} is not a compressed ${keyType} key`;
  try {
    const point = CURVES[keyType].Point.fromBytes(publicKey);
    point.assertValidity();
    // Uncompressed, so that verifying does not decompress the point again.
    return { curve: keyType, publicKey: point.toBytes(false) };
  } catch {
    return `${didKey} is not a point of ${keyType}`;
  }
}

/** The signature bytes of `sig`, or why its encoding is refused. */
export function decodeSignature(sig: string): Uint8Array | string {
  if (!/^[A-Za-z0-9_-]+$/.test(sig)) {
    return "the signature is not unpadded base64url (padding, line break or other characters)";
  }
  let bytes: Uint8Array;
  try {
    bytes = base64urlnopad.decode(sig);
  } catch {
    return "the signature's base64url is not canonical (non-zero padding bits)";
  }
  return bytes.length === 64 ? bytes : `the signature has ${bytes.length} bytes, not 64`;
}

/** Outcome of checking an operation's signature against a list of keys. */
export type SignatureCheck =
  | { ok: true; index: number }
  | { ok: false; encoding: boolean; message: string };

/**
 * The index of the first key of `keys` that signed `unsigned` with `sig`. A key that cannot be
 * parsed ends the search (as in the reference implementations), as does a badly encoded signature.
 */
export function findSigner(
  sig: string,
  unsigned: Uint8Array,
  keys: readonly string[],
): SignatureCheck {
  const bytes = decodeSignature(sig);
  if (typeof bytes === "string") return { ok: false, encoding: true, message: bytes };
  if (keys.length === 0) {
    return { ok: false, encoding: false, message: "there is no rotation key to verify it with" };
  }
  for (let i = 0; i < keys.length; i++) {
    const key = parseRotationKey(keys[i]!);
    if (typeof key === "string") return { ok: false, encoding: false, message: key };
    let valid = false;
    try {
      valid = CURVES[key.curve].verify(bytes, unsigned, key.publicKey, {
        lowS: true,
        prehash: true,
        format: "compact",
      });
    } catch {
      valid = false;
    }
    if (valid) return { ok: true, index: i };
  }
  return {
    ok: false,
    encoding: false,
    message: `no key of [${keys.join(", ")}] made this (low-S) signature`,
  };
}
