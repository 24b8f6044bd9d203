/**
 * Ed25519 and X25519 key code shared by the whole service, on one library (`@noble/curves`):
 * base58 verkeys (Aries RFC 0019), Ed25519 `did:key` conversion, key generation, signatures, and
 * the one Ed25519 → X25519 conversion (public and secret halves).
 *
 * Secret keys: every function that takes an Ed25519 secret key accepts either the 32-byte seed
 * (as Askar / Credo store it) or the 64-byte libsodium form (`seed || publicKey`).
 *
 * @module
 */
import { ed25519ToMontgomery } from "./lite.ts";
import { ed25519 } from "@noble/curves/ed25519.js";
import { base58 } from "@scure/base";
import { Lru } from "../base/mod.ts";

/** Thrown for a key string or key bytes that are not a valid Ed25519 key in the expected form. */
export class KeyFormatError extends Error {
  /** @param message short description of what was wrong (never contains secret material) */
  constructor(message: string) {
    super(message);
    this.name = "KeyFormatError";
  }
}

/** An Ed25519 key pair in the forms the service needs. */
export interface Ed25519KeyPair {
  /** base58 (bitcoin alphabet) of the 32-byte public key, the RFC 0019 "verkey". */
  verkey: string;
  /** 32-byte Ed25519 public key. */
  publicKey: Uint8Array;
  /** 64-byte libsodium-form secret key (`seed || publicKey`). */
  secretKey: Uint8Array;
  /** 32-byte seed from which the pair derives. */
  seed: Uint8Array;
}

/** Multicodec prefix of an Ed25519 public key (varint of 0xed). */
const ED25519_MULTICODEC = [0xed, 0x01] as const;

/** Decodes a base58 Ed25519 verkey to its 32 bytes; throws {@link KeyFormatError}. */
export function verkeyToBytes(verkey: string): Uint8Array {
  if (typeof verkey !== "string" || verkey.length < 32 || verkey.length > 50) {
    throw new KeyFormatError("verkey is not base58 of 32 bytes");
  }
  let bytes: Uint8Array;
  try {
    bytes = base58.decode(verkey);
  } catch {
    throw new KeyFormatError("verkey is not base58");
  }
  if (bytes.length !== 32) throw new KeyFormatError("verkey is not base58 of 32 bytes");
  return bytes;
}

/** Encodes a 32-byte Ed25519 public key as a base58 verkey; throws {@link KeyFormatError}. */
export function bytesToVerkey(publicKey: Uint8Array): string {
  if (!(publicKey instanceof Uint8Array) || publicKey.length !== 32) {
    throw new KeyFormatError("public key must be 32 bytes");
  }
  return base58.encode(publicKey);
}

/** `did:key:z6Mk…` for a base58 Ed25519 verkey. */
export function verkeyToDidKey(verkey: string): string {
  const pk = verkeyToBytes(verkey);
  const buf = new Uint8Array(34);
  buf.set(ED25519_MULTICODEC, 0);
  buf.set(pk, 2);
  return `did:key:z${base58.encode(buf)}`;
}

/**
 * Base58 verkey of an Ed25519 `did:key` (a fragment such as `#z6Mk…` is ignored).
 * Throws {@link KeyFormatError} for other key types or malformed input.
 */
export function didKeyToVerkey(didKey: string): string {
  if (typeof didKey !== "string" || !didKey.startsWith("did:key:z")) {
    throw new KeyFormatError("not a base58btc did:key");
  }
  const hash = didKey.indexOf("#");
  const id = didKey.slice("did:key:z".length, hash === -1 ? undefined : hash);
  let bytes: Uint8Array;
  try {
    bytes = base58.decode(id);
  } catch {
    throw new KeyFormatError("did:key is not base58btc");
  }
  if (
    bytes.length !== 34 || bytes[0] !== ED25519_MULTICODEC[0] || bytes[1] !== ED25519_MULTICODEC[1]
  ) {
    throw new KeyFormatError("did:key is not an Ed25519 key");
  }
  return base58.encode(bytes.subarray(2));
}

/** Accepts a base58 verkey or an Ed25519 `did:key` and returns the base58 verkey. */
export function toVerkey(keyOrDidKey: string): string {
  if (typeof keyOrDidKey === "string" && keyOrDidKey.startsWith("did:key:")) {
    return didKeyToVerkey(keyOrDidKey);
  }
  return bytesToVerkey(verkeyToBytes(keyOrDidKey));
}

/** Generates an Ed25519 key pair, from `seed` (32 bytes) when given, else from fresh randomness. */
export function generateEd25519KeyPair(seed?: Uint8Array): Ed25519KeyPair {
  const s = seed ?? crypto.getRandomValues(new Uint8Array(32));
  if (!(s instanceof Uint8Array) || s.length !== 32) {
    throw new KeyFormatError("seed must be 32 bytes");
  }
  const publicKey = ed25519.getPublicKey(s);
  const secretKey = new Uint8Array(64);
  secretKey.set(s, 0);
  secretKey.set(publicKey, 32);
  return { verkey: base58.encode(publicKey), publicKey, secretKey, seed: secretKey.slice(0, 32) };
}

/**
 * Normalises an Ed25519 secret key (32-byte seed or 64-byte `seed || pk`) to the 64-byte form.
 * The public half is recomputed from the seed, so a 64-byte key whose public half does not match
 * its seed is rejected with {@link KeyFormatError}.
 */
export function toEd25519SecretKey(secretKey: Uint8Array): Uint8Array {
  if (!(secretKey instanceof Uint8Array) || (secretKey.length !== 32 && secretKey.length !== 64)) {
    throw new KeyFormatError("Ed25519 secret key must be a 32-byte seed or 64 bytes");
  }
  const full = generateEd25519KeyPair(secretKey.slice(0, 32)).secretKey;
  if (secretKey.length === 64 && !equalBytes(full.subarray(32), secretKey.subarray(32))) {
    full.fill(0);
    throw new KeyFormatError("Ed25519 secret key halves do not match");
  }
  return full;
}

/** Verifies an Ed25519 signature; false (never a throw) for anything malformed. */
export function verifyEd25519(
  signature: Uint8Array,
  message: Uint8Array,
  publicKey: Uint8Array,
): boolean {
  if (signature.length !== 64 || publicKey.length !== 32) return false;
  try {
    return ed25519.verify(signature, message, publicKey, { zip215: false });
  } catch {
    return false;
  }
}

/**
 * X25519 public key of a 32-byte Ed25519 public key (the birational map of RFC 7748). The point is
 * decoded and checked first: bytes that are not a point, or a point of small order, are refused
 * with {@link KeyFormatError} (as libsodium's conversion refuses them).
 */
export function ed25519PublicToX25519(publicKey: Uint8Array): Uint8Array {
  if (!(publicKey instanceof Uint8Array) || publicKey.length !== 32) {
    throw new KeyFormatError("public key must be 32 bytes");
  }
  // One field exponentiation checks the point and gives u = (1 + y) / (1 − y) (`lite.ts`).
  const u = ed25519ToMontgomery(publicKey);
  if (u === undefined) throw new KeyFormatError("not a valid Ed25519 public key");
  return u;
}

/** X25519 secret key of an Ed25519 secret key (32-byte seed or 64 bytes). */
export function ed25519SecretToX25519(secretKey: Uint8Array): Uint8Array {
  return ed25519.utils.toMontgomerySecret(toEd25519SecretKey(secretKey).subarray(0, 32));
}

const xPublicCache = new Lru<Uint8Array>(1024);

/**
 * X25519 public key of a base58 Ed25519 verkey, through a small bounded cache. Throws
 * {@link KeyFormatError} for an invalid verkey.
 */
export function verkeyToX25519(verkey: string): Uint8Array {
  const hit = xPublicCache.get(verkey);
  if (hit) return hit.slice();
  const x = ed25519PublicToX25519(verkeyToBytes(verkey));
  xPublicCache.set(verkey, x);
  return x.slice();
}

function equalBytes(a: Uint8Array, b: Uint8Array): boolean {
  if (a.length !== b.length) return false;
  let d = 0;
  for (let i = 0; i < a.length; i++) d |= a[i]! ^ b[i]!;
  return d === 0;
}
