/**
 * Key helpers for DIDComm v1 (Aries RFC 0019): base58 Ed25519 verkeys, `did:key` (multicodec
 * 0xed01) conversion, Ed25519 key generation and Ed25519 → X25519 conversion.
 *
 * Secret keys: every function that takes an Ed25519 secret key accepts either the 32-byte seed
 * (as Askar / Credo 0.5+ store it) or the 64-byte libsodium secret key (`seed || publicKey`).
 *
 * @module
 */
import sodium from "libsodium-wrappers";
import { base58 } from "@scure/base";

/** Thrown for a key string or key bytes that are not a valid Ed25519 key in the expected form. */
export class KeyFormatError extends Error {
  /** @param message short description of what was wrong (never contains secret material) */
  constructor(message: string) {
    super(message);
    this.name = "KeyFormatError";
  }
}

/** An Ed25519 key pair in the forms the DIDComm code needs. */
export interface Ed25519KeyPair {
  /** base58 (bitcoin alphabet) of the 32-byte public key, the RFC 0019 "verkey". */
  verkey: string;
  /** 32-byte Ed25519 public key. */
  publicKey: Uint8Array;
  /** 64-byte libsodium secret key (`seed || publicKey`). */
  secretKey: Uint8Array;
  /** 32-byte seed from which the pair derives. */
  seed: Uint8Array;
}

type Sodium = typeof sodium;
let ready: Promise<Sodium> | undefined;

/** Resolves to the initialised libsodium instance (initialises it once). */
export function getSodium(): Promise<Sodium> {
  ready ??= sodium.ready.then(() => sodium);
  return ready;
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

/**
 * Generates an Ed25519 key pair, from `seed` (32 bytes) when given, else from fresh randomness.
 */
export async function generateEd25519KeyPair(seed?: Uint8Array): Promise<Ed25519KeyPair> {
  const s = await getSodium();
  const useSeed = seed ?? s.randombytes_buf(32);
  if (!(useSeed instanceof Uint8Array) || useSeed.length !== 32) {
    throw new KeyFormatError("seed must be 32 bytes");
  }
  const kp = s.crypto_sign_seed_keypair(useSeed);
  return {
    verkey: base58.encode(kp.publicKey),
    publicKey: kp.publicKey,
    secretKey: kp.privateKey,
    seed: kp.privateKey.slice(0, 32),
  };
}

/**
 * Normalises an Ed25519 secret key (32-byte seed or 64-byte `seed || pk`) to the 64-byte
 * libsodium form. The public half is recomputed from the seed, so a 64-byte key whose public
 * half does not match its seed is rejected with {@link KeyFormatError}.
 */
export async function toEd25519SecretKey(secretKey: Uint8Array): Promise<Uint8Array> {
  const s = await getSodium();
  if (!(secretKey instanceof Uint8Array) || (secretKey.length !== 32 && secretKey.length !== 64)) {
    throw new KeyFormatError("Ed25519 secret key must be a 32-byte seed or 64 bytes");
  }
  const kp = s.crypto_sign_seed_keypair(secretKey.subarray(0, 32));
  if (secretKey.length === 64 && !s.memcmp(kp.privateKey, secretKey)) {
    throw new KeyFormatError("Ed25519 secret key halves do not match");
  }
  return kp.privateKey;
}

/** Converts a 32-byte Ed25519 public key to X25519; throws {@link KeyFormatError} if invalid. */
export async function ed25519PublicToX25519(publicKey: Uint8Array): Promise<Uint8Array> {
  const s = await getSodium();
  if (!(publicKey instanceof Uint8Array) || publicKey.length !== 32) {
    throw new KeyFormatError("public key must be 32 bytes");
  }
  try {
    return s.crypto_sign_ed25519_pk_to_curve25519(publicKey);
  } catch {
    throw new KeyFormatError("not a valid Ed25519 public key");
  }
}

const xPublicCache = new Map<string, Uint8Array>();

/**
 * X25519 public key of a base58 Ed25519 verkey, through a small bounded cache (the conversion
 * costs ~0.1 ms). Throws {@link KeyFormatError} for an invalid verkey.
 */
export async function verkeyToX25519(verkey: string): Promise<Uint8Array> {
  const hit = xPublicCache.get(verkey);
  if (hit) return hit.slice();
  const x = await ed25519PublicToX25519(verkeyToBytes(verkey));
  if (xPublicCache.size >= 1024) xPublicCache.clear();
  xPublicCache.set(verkey, x);
  return x.slice();
}

/** Converts an Ed25519 secret key (32-byte seed or 64 bytes) to the X25519 secret key. */
export async function ed25519SecretToX25519(secretKey: Uint8Array): Promise<Uint8Array> {
  const s = await getSodium();
  return s.crypto_sign_ed25519_sk_to_curve25519(await toEd25519SecretKey(secretKey));
}
