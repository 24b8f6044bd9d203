/**
 * `didTargetOf` (src/did/http/did_url.ts): a DID alone is read at once, and reads as the same DID
 * written in any other way the contract allows (percent-encoded whole, an empty query).
 */
import assert from "node:assert/strict";
import { didTargetOf } from "../../src/did/http/did_url.ts";

const BASE = "http://localhost:8000/dids/";
const target = (rest: string) => didTargetOf(BASE + rest, BASE.length);

Deno.test("a DID alone is a plain target, however it is written", () => {
  for (
    const did of [
      "did:key:z6MkhaXgBZDvotDkL5257faiztiGiC2QtKLGpbnnEGta2doK",
      "did:web:example.com",
      "did:ethr:0x5:0xb9c5714089478a327f09197987f16f9e5d936e8a",
    ]
  ) {
    const want = { didUrl: did, plain: true, noCache: false };
    assert.deepEqual(target(did), want);
    assert.deepEqual(target(encodeURIComponent(did)), want);
    assert.deepEqual(target(`${did}?`), want);
  }
});

Deno.test("anything but a DID alone is read by the whole rule", () => {
  const did = "did:web:example.com";
  assert.deepEqual(target("did:web:example.com%3A3000"), {
    didUrl: "did:web:example.com%3A3000",
    plain: true,
    noCache: false,
  });
  assert.deepEqual(target(`${did}?noCache=true`), { didUrl: did, plain: true, noCache: true });
  assert.deepEqual(target(`${did}%23key-1`), {
    didUrl: `${did}#key-1`,
    plain: false,
    noCache: false,
  });
  assert.deepEqual(target(`${did}?versionId=2`), {
    didUrl: `${did}?versionId=2`,
    plain: false,
    noCache: false,
  });
  assert.deepEqual(target(`${did}/path`), { didUrl: `${did}/path`, plain: false, noCache: false });
  assert.equal(target("did%3Aweb%3A%E0%A4%A"), undefined);
});
