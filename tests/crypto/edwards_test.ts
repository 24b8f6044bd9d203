import assert from "node:assert/strict";
import { ed25519 } from "@noble/curves/ed25519.js";
import { base58 } from "@scure/base";
import { decodeEd25519, ed25519ToMontgomery, isEd25519Point } from "../../src/crypto/mod.ts";
import { encodeBase58 } from "../../src/did/keys/multicodec.ts";

const P = (1n << 255n) - 19n;
const Y8 = 55188659117513257062467267217118295137698188065244968500265048394206261417927n;

function encode(y: bigint, sign: boolean): Uint8Array {
  const out = new Uint8Array(32);
  for (let i = 0; i < 32; i++) out[i] = Number((y >> BigInt(8 * i)) & 0xffn);
  if (sign) out[31]! |= 0x80;
  return out;
}

/** noble's answer: valid point (assertValidity), and its X25519 key unless of small order. */
function noble(bytes: Uint8Array): { valid: boolean; u?: Uint8Array } {
  try {
    const p = ed25519.Point.fromBytes(bytes);
    p.assertValidity();
    return { valid: true, u: p.isSmallOrder() ? undefined : ed25519.utils.toMontgomery(bytes) };
  } catch {
    return { valid: false };
  }
}

Deno.test("edwards: agrees with noble on 4000 random encodings and keys (validity and X25519)", () => {
  let points = 0;
  for (let i = 0; i < 4000; i++) {
    const b = crypto.getRandomValues(new Uint8Array(32));
    if (i % 2 === 0) b.set(ed25519.getPublicKey(crypto.getRandomValues(new Uint8Array(32))));
    if (i % 7 === 0) b[31]! ^= 0x80;
    const ref = noble(b);
    assert.equal(isEd25519Point(b), ref.valid, `validity of ${b}`);
    assert.deepEqual(ed25519ToMontgomery(b), ref.u, `X25519 of ${b}`);
    if (ref.valid) points++;
  }
  assert.ok(points > 2000);
});

Deno.test("edwards: non-canonical y, the identity and small-order points", () => {
  for (const y of [P, P + 1n, (1n << 255n) - 1n]) {
    assert.equal(decodeEd25519(encode(y, false)).kind, "invalid", `y = ${y}`);
  }
  assert.equal(decodeEd25519(encode(1n, false)).kind, "invalid", "the identity");
  assert.equal(decodeEd25519(encode(P - 1n, true)).kind, "invalid", "x = 0 with the sign bit");
  for (const y of [0n, P - 1n, Y8, P - Y8]) {
    assert.equal(decodeEd25519(encode(y, false)).kind, "small", `y = ${y}`);
    assert.equal(noble(encode(y, false)).u, undefined);
  }
  assert.equal(decodeEd25519(new Uint8Array(31)).kind, "invalid");
});

Deno.test("encodeBase58 matches @scure/base for every length and leading zeros", () => {
  for (let i = 0; i < 3000; i++) {
    const b = crypto.getRandomValues(new Uint8Array(i % 80));
    for (let j = 0; j < i % 4 && j < b.length; j++) b[j] = 0;
    if (i % 13 === 0) b.fill(0);
    assert.equal(encodeBase58(b), base58.encode(b));
  }
});
