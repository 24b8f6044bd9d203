/**
 * base58btc of `src/did/keys/multicodec.ts` (written out there so that the early lane loads no npm
 * package) gives what @scure/base gives, both ways, leading zeros and long inputs included, and
 * refuses what is not base58btc.
 */
import assert from "node:assert/strict";
import { base58 } from "@scure/base";
import { decodeBase58, decodeMultibaseKey, encodeBase58 } from "../../src/did/keys/multicodec.ts";

Deno.test("base58btc encodes and decodes as @scure/base does", () => {
  const lengths = [0, 1, 2, 3, 4, 5, 31, 32, 33, 34, 35, 48, 64, 65, 66, 96, 133, 200, 512];
  for (const length of lengths) {
    for (let round = 0; round < 20; round++) {
      const bytes = crypto.getRandomValues(new Uint8Array(length));
      // Leading zero bytes are leading "1"s: some rounds start with a few.
      for (let z = 0; z < Math.min(length, round % 4); z++) bytes[z] = 0;
      const text = base58.encode(bytes);
      assert.equal(encodeBase58(bytes), text, `encode, ${length} bytes`);
      if (text === "") continue;
      const back = decodeBase58(text);
      assert.ok(back.ok, text);
      assert.deepEqual(back.value, bytes, `decode ${text}`);
    }
  }
  for (
    const edge of [
      new Uint8Array([0]),
      new Uint8Array(5),
      Uint8Array.of(0, 0, 255),
      new Uint8Array(40).fill(255),
    ]
  ) {
    assert.equal(encodeBase58(edge), base58.encode(edge));
    const back = decodeBase58(base58.encode(edge));
    assert.ok(back.ok);
    assert.deepEqual(back.value, edge);
  }
});

Deno.test("base58btc refuses other alphabets; keys decode as before", () => {
  for (const bad of ["", "0", "O", "I", "l", "abc+", "z6Mk hax"]) {
    assert.equal(decodeBase58(bad).ok, false, JSON.stringify(bad));
  }
  const key = decodeMultibaseKey("z6MkhaXgBZDvotDkL5257faiztiGiC2QtKLGpbnnEGta2doK");
  assert.ok(key.ok);
  assert.equal(key.value.keyType, "Ed25519");
  assert.equal(encodeBase58(key.value.publicKey), "48GdbJyVULjHDaBNS6ct9oAGtckZUS5v8asrPzvZ7R1w");
});
