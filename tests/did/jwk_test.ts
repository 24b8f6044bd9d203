import assert from "node:assert/strict";
import { base64urlnopad } from "@scure/base";
import { createDidJwk, didJwkDocument, jwkMethod } from "../../src/did/methods/jwk.ts";
import { parseDid } from "../../src/did/syntax.ts";
import { loadVector } from "./normalize.ts";

type VectorFile = { vectors: Record<string, Record<string, unknown>> };

const encode = (jwk: unknown) =>
  "did:jwk:" + base64urlnopad.encode(new TextEncoder().encode(JSON.stringify(jwk)));

async function resolve(did: string) {
  const parsed = parseDid(did);
  assert.ok(parsed, did);
  return await jwkMethod.resolve(parsed, {});
}

Deno.test("did:jwk documents equal the spec examples exactly", async () => {
  const { vectors } = await loadVector<VectorFile>("did_jwk_spec.json");
  for (const [did, published] of Object.entries(vectors)) {
    // The spec text has a typo "did:jwk:$eyJ..." in one authentication entry: correct only that.
    const expected = JSON.parse(JSON.stringify(published).replaceAll("did:jwk:$", "did:jwk:"));
    const res = await resolve(did);
    assert.equal(res.didResolutionMetadata.error, undefined, res.didResolutionMetadata.message);
    assert.deepEqual(res.didDocument, expected);
  }
});

Deno.test("did:jwk relationships follow use: sig has no keyAgreement, enc only keyAgreement", () => {
  const base = {
    kty: "OKP",
    crv: "Ed25519",
    x: "11qYAYKxCrfVS_7TyWQHOg7hcvPapiMlrwIaaPcHURo",
  };
  const sig = didJwkDocument(encode({ ...base, use: "sig" }));
  assert.ok(sig.ok, sig.ok ? "" : sig.message);
  assert.equal(sig.value.keyAgreement, undefined);
  assert.equal(sig.value.authentication?.length, 1);
  const none = didJwkDocument(encode(base));
  assert.ok(none.ok);
  assert.equal(none.value.keyAgreement?.length, 1);
  assert.equal(none.value.assertionMethod?.length, 1);
  const enc = didJwkDocument(encode({ kty: "OKP", crv: "X25519", use: "enc", x: base.x }));
  assert.ok(enc.ok);
  assert.deepEqual(Object.keys(enc.value).filter((k) => k !== "verificationMethod").sort(), [
    "@context",
    "id",
    "keyAgreement",
  ]);
});

Deno.test("did:jwk keeps custom JWK members but never uses kid as the fragment", () => {
  const jwk = {
    kty: "OKP",
    crv: "Ed25519",
    x: "11qYAYKxCrfVS_7TyWQHOg7hcvPapiMlrwIaaPcHURo",
    kid: "my-key",
    custom: 1,
  };
  const did = createDidJwk(jwk);
  const doc = didJwkDocument(did);
  assert.ok(doc.ok);
  assert.equal(doc.value.verificationMethod![0]!.id, `${did}#0`);
  assert.deepEqual(doc.value.verificationMethod![0]!.publicKeyJwk, jwk);
});

Deno.test("did:jwk rejects private keys, bad base64url, non-JSON and bad keys with invalidDid", async () => {
  const p256 = {
    kty: "EC",
    crv: "P-256",
    x: "acbIQiuMs3i8_uszEjJ2tpTtRM4EU3yz91PH6CdH2V0",
    y: "_KcyLj9vWMptnmKtm46GqDz8wf74I5LKgrl2GzH3nSE",
  };
  const cases = [
    encode({ ...p256, d: "gPh-VvVS8MbvKQ9LSVVmfnxnKjHn4Tqj0bmbpehRlpc" }), // private key
    encode({ kty: "oct", k: "c2VjcmV0" }), // symmetric
    encode({ ...p256, y: "efsX5b10x8yjyrj4ny3pGfLcY7Xby1KzgqOdqnsrJIM" }), // not on the curve
    encode({ ...p256, x: "AAAA" }), // short coordinate
    encode({ kty: "OKP", crv: "X25519" }), // no x
    encode(["not", "an", "object"]),
    "did:jwk:" + base64urlnopad.encode(new TextEncoder().encode("{not json")),
    "did:jwk:eyJrdHkiOiJPS1A", // truncated base64url JSON
    "did:jwk:e", // not decodable
  ];
  for (const did of cases) {
    const res = await resolve(did);
    assert.equal(res.didResolutionMetadata.error, "invalidDid", did);
    assert.equal(res.didDocument, null);
  }
  assert.throws(() => createDidJwk({ ...p256, d: "x" }));
  assert.equal(jwkMethod.deterministic, true);
});
