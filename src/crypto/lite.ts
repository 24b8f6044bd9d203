/**
 * The light entry of `crypto/`: Ed25519 public key checks and the Ed25519 → X25519 public key map,
 * hand-rolled on bigint (measured faster than noble's point decompression, which this replaces
 * here; see tests/bench/cold_path_bench.ts): one field exponentiation decides whether the 32 bytes
 * encode a point and also gives the one inversion that the X25519 (Montgomery u) key needs.
 *
 * For an encoding with y < p: x² = u / v with u = y² − 1 and v = d·y² + 1 (v is never 0), so the
 * bytes are a point exactly when u·v is a square (or u = 0). With c = u·v·(1 − y)² and
 * z = c^((p−3)/2): z·c = c^((p−1)/2) is the Legendre symbol of u·v (1 − y ≠ 0), and when it is 1,
 * z·u·v·(1 − y) = 1/(1 − y), so the Montgomery u = (1 + y)/(1 − y) costs a few multiplications more.
 * Small-order points (the eight torsion points, y ∈ {1, −1, 0, ±y₈}) have no usable X25519 key;
 * the identity (y = 1) is not accepted as a public key at all (as noble's `assertValidity`).
 *
 * Free of imports, so that code loaded before the app (the DID early lane) can take it without the
 * rest of `crypto/` (`mod.ts`: secrets, rotation, noble).
 *
 * @module
 */

const P = (1n << 255n) - 19n;
const D = 37095705934669439343138083508754565189542113879843219016388785533085940283555n;
const Y8 = 55188659117513257062467267217118295137698188065244968500265048394206261417927n;
const SMALL_ORDER_Y = new Set<bigint>([0n, 1n, P - 1n, Y8, P - Y8]);

/** z^(2^n) mod p. */
function sq(z: bigint, n: number): bigint {
  for (let i = 0; i < n; i++) z = z * z % P;
  return z;
}

/** z^((p−3)/2) = z^(2^254 − 11) mod p: 254 squarings and 12 multiplications. */
function powPm3Half(z: bigint): bigint {
  const z2 = z * z % P;
  const z4 = z2 * z2 % P;
  const z9 = z4 * z4 % P * z % P;
  const z11 = z9 * z2 % P;
  const z5_0 = z11 * z11 % P * z9 % P; // 2^5 − 1
  const z10_0 = sq(z5_0, 5) * z5_0 % P;
  const z20_0 = sq(z10_0, 10) * z10_0 % P;
  const z40_0 = sq(z20_0, 20) * z20_0 % P;
  const z50_0 = sq(z40_0, 10) * z10_0 % P;
  const z100_0 = sq(z50_0, 50) * z50_0 % P;
  const z200_0 = sq(z100_0, 100) * z100_0 % P;
  const z250_0 = sq(z200_0, 50) * z50_0 % P;
  return sq(z250_0, 4) * (z4 * z % P) % P; // (2^250 − 1)·2^4 + 5
}

const HEX: string[] = Array.from({ length: 256 }, (_, i) => i.toString(16).padStart(2, "0"));

/** y of an encoding (little-endian, sign bit cleared). */
function readY(bytes: Uint8Array): bigint {
  let hex = HEX[bytes[31]! & 0x7f]!;
  for (let i = 30; i >= 0; i--) hex += HEX[bytes[i]!]!;
  return BigInt("0x" + hex);
}

/** 32 little-endian bytes of `n` (< 2^256). */
function writeLe(n: bigint): Uint8Array {
  const hex = n.toString(16).padStart(64, "0");
  const out = new Uint8Array(32);
  for (let i = 0; i < 32; i++) out[i] = parseInt(hex.slice(62 - 2 * i, 64 - 2 * i), 16);
  return out;
}

/** What the one exponentiation tells about an encoding. */
export type Ed25519Decoded =
  | { kind: "invalid" }
  | { kind: "small" }
  | { kind: "point"; montgomeryU: Uint8Array };

/**
 * Decodes an Ed25519 public key: `invalid` (not a canonical point encoding, or the identity),
 * `small` (a point of small order) or `point` with its X25519 public key.
 */
export function decodeEd25519(publicKey: Uint8Array): Ed25519Decoded {
  if (publicKey.length !== 32) return { kind: "invalid" };
  const y = readY(publicKey);
  if (y >= P) return { kind: "invalid" }; // not canonical
  if (SMALL_ORDER_Y.has(y)) {
    // The identity is no public key; y = −1 gives x = 0, whose sign bit must be clear.
    if (y === 1n) return { kind: "invalid" };
    return y === P - 1n && (publicKey[31]! & 0x80) !== 0 ? { kind: "invalid" } : { kind: "small" };
  }
  const y2 = y * y % P;
  const uv = (y2 + P - 1n) * ((D * y2 + 1n) % P) % P;
  const oneMinusY = P + 1n - y;
  const c = uv * (oneMinusY * oneMinusY % P) % P;
  const z = powPm3Half(c);
  if (z * c % P !== 1n) return { kind: "invalid" }; // u·v is not a square: no x
  const inv = z * uv % P * oneMinusY % P;
  return { kind: "point", montgomeryU: writeLe((1n + y) * inv % P) };
}

/** True when the 32 bytes are a canonical encoding of a point on edwards25519 (small order too). */
export function isEd25519Point(publicKey: Uint8Array): boolean {
  return decodeEd25519(publicKey).kind !== "invalid";
}

/**
 * The X25519 public key (Montgomery u, 32 bytes little-endian) of an Ed25519 public key, or
 * undefined when the bytes are not a point or the point has small order.
 */
export function ed25519ToMontgomery(publicKey: Uint8Array): Uint8Array | undefined {
  const d = decodeEd25519(publicKey);
  return d.kind === "point" ? d.montgomeryU : undefined;
}
