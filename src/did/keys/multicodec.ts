/**
 * Multiformats helpers for DID methods: unsigned varint, multibase (base58btc `z`) and multicodec
 * public keys (as used by did:key and did:peer). Free of npm packages: the DID early lane loads it
 * before the app (no npm package in the first stage of the start; base58 is a few lines here,
 * checked against @scure/base in tests/did/multicodec_test.ts).
 */
import { fail, ok, type Result } from "../types.ts";

/** Public key types this library understands. */
export type KeyType =
  | "Ed25519"
  | "X25519"
  | "secp256k1"
  | "P-256"
  | "P-384"
  | "P-521"
  | "Bls12381G2";

interface CodecInfo {
  code: number;
  /** Allowed raw key lengths in bytes (compressed first for EC curves). */
  lengths: readonly number[];
}

/** Multicodec table (https://github.com/multiformats/multicodec/blob/master/table.csv). */
export const KEY_CODECS: Readonly<Record<KeyType, CodecInfo>> = {
  "Ed25519": { code: 0xed, lengths: [32] },
  "X25519": { code: 0xec, lengths: [32] },
  "secp256k1": { code: 0xe7, lengths: [33, 65] },
  "Bls12381G2": { code: 0xeb, lengths: [96] },
  "P-256": { code: 0x1200, lengths: [33, 65] },
  "P-384": { code: 0x1201, lengths: [49, 97] },
  "P-521": { code: 0x1202, lengths: [67, 133] },
};

const BY_CODE = new Map<number, KeyType>(
  (Object.entries(KEY_CODECS) as [KeyType, CodecInfo][]).map(([t, c]) => [c.code, t]),
);

/** Multicodec code of JSON (did:peer:4 encoded documents). */
export const MULTICODEC_JSON = 0x0200;
/** Multihash code of sha2-256. */
export const MULTIHASH_SHA2_256 = 0x12;

/** Encodes an unsigned varint (multiformats flavour). */
export function encodeVarint(n: number): Uint8Array {
  const out: number[] = [];
  let v = n;
  while (v >= 0x80) {
    out.push((v & 0x7f) | 0x80);
    v = Math.floor(v / 128);
  }
  out.push(v);
  return Uint8Array.from(out);
}

/** Decodes an unsigned varint at the start of `bytes`: value and number of bytes used. */
export function decodeVarint(bytes: Uint8Array): Result<{ value: number; length: number }> {
  let value = 0;
  let shift = 1;
  for (let i = 0; i < bytes.length && i < 9; i++) {
    const b = bytes[i]!;
    value += (b & 0x7f) * shift;
    if ((b & 0x80) === 0) {
      // Minimal encoding only: a trailing zero byte after the first is not canonical.
      if (i > 0 && b === 0) return fail("the multicodec varint is not minimally encoded");
      return ok({ value, length: i + 1 });
    }
    shift *= 128;
  }
  return fail("the multicodec varint is truncated");
}

/** Concatenates byte arrays. */
export function concatBytes(...parts: Uint8Array[]): Uint8Array {
  const out = new Uint8Array(parts.reduce((n, p) => n + p.length, 0));
  let off = 0;
  for (const p of parts) {
    out.set(p, off);
    off += p.length;
  }
  return out;
}

const BASE58_RE = /^[1-9A-HJ-NP-Za-km-z]+$/;

const ALPHABET = "123456789ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz";
const CODES = Array.from(ALPHABET, (c) => c.charCodeAt(0));
const DIGITS = new Int8Array(128).fill(-1);
CODES.forEach((code, digit) => (DIGITS[code] = digit));
/** 58^4 < 2^24: a 24-bit limb times (or with a remainder below) it stays under 2^48, exact. */
const B4 = 58 ** 4;
const LIMB = 16777216;

/**
 * Decodes plain base58btc (Bitcoin alphabet): four digits per pass multiplied into 24-bit limbs in
 * plain numbers; each leading "1" is a zero byte.
 */
export function decodeBase58(text: string): Result<Uint8Array> {
  if (!BASE58_RE.test(text)) return fail("not base58btc text");
  let zeros = 0;
  while (zeros < text.length && text.charCodeAt(zeros) === 49) zeros++;
  const limbs: number[] = []; // least significant first
  let i = zeros;
  let n = (text.length - zeros) % 4 || 4; // the first pass takes the leftover digits
  while (i < text.length) {
    let carry = 0;
    let mul = 1;
    for (let k = 0; k < n; k++) {
      carry = carry * 58 + DIGITS[text.charCodeAt(i++)]!;
      mul *= 58;
    }
    n = 4;
    for (let j = 0; j < limbs.length; j++) {
      const cur = limbs[j]! * mul + carry;
      carry = Math.floor(cur / LIMB);
      limbs[j] = cur - carry * LIMB;
    }
    for (; carry > 0; carry = Math.floor(carry / LIMB)) limbs.push(carry % LIMB);
  }
  const le: number[] = []; // bytes, least significant first
  for (const v of limbs) le.push(v & 255, (v >> 8) & 255, v >> 16);
  while (le.length > 0 && le[le.length - 1] === 0) le.pop();
  const out = new Uint8Array(zeros + le.length);
  for (let j = 0; j < le.length; j++) out[out.length - 1 - j] = le[j]!;
  return ok(out);
}

/**
 * Encodes plain base58btc: 24-bit limbs divided by 58^4, four digits per pass, in plain numbers
 * (several times faster than the generic byte-array algorithm).
 */
export function encodeBase58(bytes: Uint8Array): string {
  let zeros = 0;
  while (zeros < bytes.length && bytes[zeros] === 0) zeros++;
  const rest = bytes.length - zeros;
  const limbs: number[] = [];
  let first = rest % 3; // big-endian 24-bit limbs; the first takes the leftover bytes
  let i = zeros;
  if (first > 0) {
    let v = 0;
    for (; first > 0; first--) v = v * 256 + bytes[i++]!;
    limbs.push(v);
  }
  for (; i < bytes.length; i += 3) {
    limbs.push((bytes[i]! << 16) | (bytes[i + 1]! << 8) | bytes[i + 2]!);
  }
  const digits: number[] = []; // least significant first
  let start = 0;
  while (start < limbs.length) {
    let rem = 0;
    for (let j = start; j < limbs.length; j++) {
      const cur = rem * LIMB + limbs[j]!;
      const q = Math.floor(cur / B4);
      limbs[j] = q;
      rem = cur - q * B4;
    }
    while (start < limbs.length && limbs[start] === 0) start++;
    for (let k = 0; k < 4 && (rem > 0 || start < limbs.length); k++) {
      digits.push(CODES[rem % 58]!);
      rem = Math.floor(rem / 58);
    }
  }
  for (let z = 0; z < zeros; z++) digits.push(49); // "1"
  return String.fromCharCode.apply(null, digits.reverse());
}

/** Decodes a multibase string; only base58btc (`z`) is used by did:key and did:peer. */
export function decodeMultibase(text: string): Result<Uint8Array> {
  if (text.length < 2) return fail("the multibase value is empty");
  if (text[0] !== "z") {
    return fail(
      `multibase prefix ${JSON.stringify(text[0])} is not supported (expected "z", base58btc)`,
    );
  }
  return decodeBase58(text.slice(1));
}

/** Encodes bytes as multibase base58btc (`z` + base58). */
export const encodeMultibase = (bytes: Uint8Array): string => "z" + encodeBase58(bytes);

/** A public key decoded from its multicodec form. */
export interface MulticodecKey {
  keyType: KeyType;
  /** Raw key bytes as encoded (compressed or uncompressed points for EC curves). */
  publicKey: Uint8Array;
}

/** Splits multicodec-prefixed key bytes into key type and raw key, checking the length. */
export function decodeMulticodecKey(bytes: Uint8Array): Result<MulticodecKey> {
  const v = decodeVarint(bytes);
  if (!v.ok) return v;
  const keyType = BY_CODE.get(v.value.value);
  if (!keyType) {
    return fail(`multicodec 0x${v.value.value.toString(16)} is not a supported public key type`);
  }
  const publicKey = bytes.slice(v.value.length);
  const lengths = KEY_CODECS[keyType].lengths;
  if (!lengths.includes(publicKey.length)) {
    return fail(
      `a ${keyType} public key has ${lengths.join(" or ")} bytes, not ${publicKey.length}`,
    );
  }
  return ok({ keyType, publicKey });
}

/** Decodes a multibase multicodec key such as `z6Mk...` (did:key fingerprint). */
export function decodeMultibaseKey(multibase: string): Result<MulticodecKey> {
  const bytes = decodeMultibase(multibase);
  if (!bytes.ok) return bytes;
  return decodeMulticodecKey(bytes.value);
}

/** Multicodec-prefixes a raw public key. */
export function encodeMulticodecKey(keyType: KeyType, publicKey: Uint8Array): Uint8Array {
  return concatBytes(encodeVarint(KEY_CODECS[keyType].code), publicKey);
}

/** Multibase (base58btc) multicodec form of a public key, e.g. `z6Mk...` for Ed25519. */
export function encodeMultibaseKey(keyType: KeyType, publicKey: Uint8Array): string {
  return encodeMultibase(encodeMulticodecKey(keyType, publicKey));
}
