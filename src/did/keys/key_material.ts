/**
 * Public key material: validation, JWK conversion (with EC point decompression), verification method
 * objects in the three common representations, and reading a key back out of a verification method.
 */
import { p256, p384, p521 } from "@noble/curves/nist.js";
import { secp256k1 } from "@noble/curves/secp256k1.js";
import { bls12_381 } from "@noble/curves/bls12-381.js";
import { base64urlnopad } from "@scure/base";
import { ed25519PublicToX25519, isEd25519Point } from "../../crypto/mod.ts";
import {
  decodeBase58,
  decodeMultibaseKey,
  encodeBase58,
  encodeMultibaseKey,
  type KeyType,
  type MulticodecKey,
} from "./multicodec.ts";
import { fail, ok, type PublicJwk, type Result, type VerificationMethod } from "../types.ts";
import { BASE58_TYPES, type KeyRepresentation } from "./verification_method.ts";

export {
  contextFor,
  DID_CONTEXT_V1,
  type KeyRepresentation,
  TYPE_CONTEXTS,
} from "./verification_method.ts";

const WEIERSTRASS = {
  "secp256k1": secp256k1,
  "P-256": p256,
  "P-384": p384,
  "P-521": p521,
} as const;
type EcKeyType = keyof typeof WEIERSTRASS;
const isEc = (t: KeyType): t is EcKeyType => t in WEIERSTRASS;

/** Byte length of one coordinate on each EC curve. */
const COORD_LEN: Record<EcKeyType, number> = {
  "secp256k1": 32,
  "P-256": 32,
  "P-384": 48,
  "P-521": 66,
};

/** Checks that the bytes are a valid public key (point on the curve / in the subgroup). */
export function validatePublicKey(keyType: KeyType, publicKey: Uint8Array): Result<true> {
  try {
    if (keyType === "Ed25519") {
      if (!isEd25519Point(publicKey)) throw new Error("not a point");
    } else if (keyType === "Bls12381G2") bls12_381.G2.Point.fromBytes(publicKey).assertValidity();
    else if (isEc(keyType)) WEIERSTRASS[keyType].Point.fromBytes(publicKey).assertValidity();
    else if (publicKey.length !== 32) return fail("an X25519 public key has 32 bytes");
    return ok(true);
  } catch {
    return fail(`the bytes are not a valid ${keyType} public key`);
  }
}

/**
 * X25519 public key derived from an Ed25519 public key (birational map, RFC 7748): the service's
 * one conversion (`crypto/`). Throws for bytes that are not a usable Ed25519 point.
 */
export const ed25519ToX25519: (publicKey: Uint8Array) => Uint8Array = ed25519PublicToX25519;

/** Public JWK of a key. EC points are decompressed to get `y`. */
export function publicKeyToJwk(keyType: KeyType, publicKey: Uint8Array): PublicJwk {
  if (isEc(keyType)) {
    const raw = WEIERSTRASS[keyType].Point.fromBytes(publicKey).toBytes(false);
    const n = COORD_LEN[keyType];
    return {
      kty: "EC",
      crv: keyType,
      x: base64urlnopad.encode(raw.slice(1, 1 + n)),
      y: base64urlnopad.encode(raw.slice(1 + n)),
    };
  }
  return { kty: "OKP", crv: keyType, x: base64urlnopad.encode(publicKey) };
}

/** Builds a verification method object for a key in the chosen representation. */
export function verificationMethodFor(
  key: MulticodecKey,
  id: string,
  controller: string,
  representation: KeyRepresentation = "base58",
): VerificationMethod {
  if (representation === "multikey") {
    return {
      id,
      type: "Multikey",
      controller,
      publicKeyMultibase: encodeMultibaseKey(key.keyType, key.publicKey),
    };
  }
  const base58Type = BASE58_TYPES[key.keyType];
  if (representation === "base58" && base58Type) {
    return { id, type: base58Type, controller, publicKeyBase58: encodeBase58(key.publicKey) };
  }
  return {
    id,
    type: "JsonWebKey2020",
    controller,
    publicKeyJwk: publicKeyToJwk(key.keyType, key.publicKey),
  };
}

const TYPE_KEYS: Readonly<Record<string, KeyType>> = {
  Ed25519VerificationKey2018: "Ed25519",
  Ed25519VerificationKey2020: "Ed25519",
  X25519KeyAgreementKey2019: "X25519",
  X25519KeyAgreementKey2020: "X25519",
  EcdsaSecp256k1VerificationKey2019: "secp256k1",
  Bls12381G2Key2020: "Bls12381G2",
};

function jwkToKey(jwk: PublicJwk): Result<MulticodecKey> {
  const bytes = (s: unknown): Uint8Array | null => {
    if (typeof s !== "string") return null;
    try {
      return base64urlnopad.decode(s);
    } catch {
      return null;
    }
  };
  const crv = jwk.crv as KeyType | undefined;
  const x = bytes(jwk.x);
  if (!crv || !x) return fail("the JWK has no usable crv and x");
  if (jwk.kty === "OKP" && (crv === "Ed25519" || crv === "X25519") && x.length === 32) {
    return ok({ keyType: crv, publicKey: x });
  }
  if (jwk.kty === "EC" && isEc(crv)) {
    const y = bytes(jwk.y);
    const n = COORD_LEN[crv];
    if (!y || x.length !== n || y.length !== n) return fail(`bad ${crv} JWK coordinates`);
    const raw = new Uint8Array(1 + 2 * n);
    raw[0] = 4;
    raw.set(x, 1);
    raw.set(y, 1 + n);
    return ok({ keyType: crv, publicKey: raw });
  }
  return fail(`JWK kty ${String(jwk.kty)} crv ${String(jwk.crv)} is not supported`);
}

/** Reads the public key of a verification method (multibase, base58 or JWK form). */
export function keyFromVerificationMethod(vm: VerificationMethod): Result<MulticodecKey> {
  if (typeof vm.publicKeyMultibase === "string") return decodeMultibaseKey(vm.publicKeyMultibase);
  if (typeof vm.publicKeyBase58 === "string") {
    const keyType = TYPE_KEYS[vm.type];
    if (!keyType) return fail(`verification method type ${vm.type} is not supported`);
    const raw = decodeBase58(vm.publicKeyBase58);
    return raw.ok ? ok({ keyType, publicKey: raw.value }) : raw;
  }
  if (vm.publicKeyJwk && typeof vm.publicKeyJwk === "object") return jwkToKey(vm.publicKeyJwk);
  return fail(`verification method ${vm.id} has no supported public key member`);
}
