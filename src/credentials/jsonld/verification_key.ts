/**
 * The verification method document the JSON-LD document loader answers for `did:…#fragment`, in
 * the form the proof suites read, whatever the DID document wrote (base58, multibase or JWK):
 *
 * - an Ed25519 key as an `Ed25519VerificationKey2020` (ed25519-2020 context), which both Ed25519
 *   Linked Data suites read and `@digitalbazaar/ed25519-multikey` (eddsa-rdfc-2022) translates;
 * - a P-256 or P-384 key as a `Multikey` (multikey context, compressed point, multicodec
 *   `p256-pub` 0x1200 / `p384-pub` 0x1201), which `@digitalbazaar/ecdsa-multikey`
 *   (ecdsa-rdfc-2019) reads.
 *
 * A JWK is not handed on as a `JsonWebKey`: `ecdsa-multikey` 1.8 imports a JWK without `key_ops`
 * as a key-agreement key, which then cannot verify.
 *
 * @module
 */
import { p256, p384 } from "@noble/curves/nist.js";
import { base58, base64urlnopad } from "@scure/base";
import { ED25519_2020_URL, MULTIKEY_V1_URL } from "./contexts/index.ts";
import { ed25519Multibase, ed25519PublicKeyOf } from "./ed25519_public_key.ts";
import type { LdVerificationMethod } from "./types.ts";

const CURVES = {
  "P-256": { point: p256.Point, header: [0x80, 0x24], coordinate: 32 },
  "P-384": { point: p384.Point, header: [0x81, 0x24], coordinate: 48 },
} as const;
type Curve = keyof typeof CURVES;

/** A P-256 or P-384 public key of a verification method, compressed; null when it has none. */
export function ecPublicKeyOf(vm: LdVerificationMethod): { curve: Curve; key: Uint8Array } | null {
  try {
    if (typeof vm.publicKeyMultibase === "string" && vm.publicKeyMultibase.startsWith("z")) {
      const bytes = base58.decode(vm.publicKeyMultibase.slice(1));
      for (const curve of Object.keys(CURVES) as Curve[]) {
        const { header, point } = CURVES[curve];
        if (bytes[0] === header[0] && bytes[1] === header[1]) {
          return { curve, key: point.fromBytes(bytes.subarray(2)).toBytes(true) };
        }
      }
      return null;
    }
    const jwk = vm.publicKeyJwk;
    if (jwk?.kty === "EC" && (jwk.crv === "P-256" || jwk.crv === "P-384")) {
      const { point, coordinate } = CURVES[jwk.crv];
      const x = base64urlnopad.decode(String(jwk.x));
      const y = base64urlnopad.decode(String(jwk.y));
      if (x.length !== coordinate || y.length !== coordinate) return null;
      const raw = new Uint8Array(1 + 2 * coordinate);
      raw[0] = 4;
      raw.set(x, 1);
      raw.set(y, 1 + coordinate);
      return { curve: jwk.crv, key: point.fromBytes(raw).toBytes(true) };
    }
  } catch {
    return null;
  }
  return null;
}

/**
 * The loader's document for verification method `id` (controller `controller`), or null when it
 * holds no Ed25519, P-256 or P-384 key. A `revoked` date is kept: the suites refuse a proof by a
 * revoked key.
 */
export function verificationKeyDocument(
  vm: LdVerificationMethod,
  id: string,
  controller: string,
): Record<string, unknown> | null {
  let out: Record<string, unknown> | null = null;
  const ed25519 = ed25519PublicKeyOf(vm);
  if (ed25519) {
    out = {
      "@context": ED25519_2020_URL,
      id,
      type: "Ed25519VerificationKey2020",
      controller,
      publicKeyMultibase: ed25519Multibase(ed25519),
    };
  } else {
    const ec = ecPublicKeyOf(vm);
    if (ec) {
      const bytes = new Uint8Array([...CURVES[ec.curve].header, ...ec.key]);
      out = {
        "@context": MULTIKEY_V1_URL,
        id,
        type: "Multikey",
        controller,
        publicKeyMultibase: `z${base58.encode(bytes)}`,
      };
    }
  }
  if (out && vm.revoked !== undefined) out.revoked = vm.revoked;
  return out;
}
