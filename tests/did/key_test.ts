import assert from "node:assert/strict";
import { getResolver } from "key-did-resolver";
import { Resolver } from "did-resolver";
import { createKeyMethod, didKeyDocument, keyMethod } from "../../src/did/methods/key.ts";
import { parseDid } from "../../src/did/syntax.ts";
import { encodeMultibase } from "../../src/did/keys/multicodec.ts";
import type { DidDocument } from "../../src/did/types.ts";
import { loadVector, normalizeDocument } from "./normalize.ts";

type VectorFile = { source: string; vectors: Record<string, Record<string, unknown>> };

const FILES = [
  "did_key_ed25519_x25519.json",
  "did_key_x25519.json",
  "did_key_secp256k1.json",
  "did_key_nist_curves.json",
  "did_key_bls12381.json",
];

async function resolveDoc(did: string, method = keyMethod) {
  const parsed = parseDid(did);
  assert.ok(parsed, `parse ${did}`);
  return await method.resolve(parsed, {});
}

for (const file of FILES) {
  Deno.test(`did:key documents match the w3c-ccg vectors in ${file} (default representation)`, async () => {
    const { vectors } = await loadVector<VectorFile>(file);
    assert.ok(Object.keys(vectors).length > 0);
    for (const [did, expected] of Object.entries(vectors)) {
      const res = await resolveDoc(did);
      assert.equal(
        res.didResolutionMetadata.error,
        undefined,
        `${did}: ${res.didResolutionMetadata.message}`,
      );
      assert.deepEqual(
        normalizeDocument(res.didDocument as Record<string, unknown>),
        normalizeDocument(expected),
        did,
      );
      assert.equal(res.didResolutionMetadata.contentType, "application/did+ld+json");
    }
  });
}

Deno.test("did:key documents name the suite context of every verification method type", async () => {
  const { vectors } = await loadVector<VectorFile>("did_key_ed25519_x25519.json");
  for (const [did, expected] of Object.entries(vectors)) {
    const doc = (await resolveDoc(did)).didDocument as DidDocument;
    assert.deepEqual(doc["@context"], expected["@context"]);
  }
  const p256 = (await resolveDoc("did:key:zDnaerx9CtbPJ1q36T5Ln5wYt3MQYeGRG5ehnPAmxcf5mDZpv"))
    .didDocument as DidDocument;
  assert.deepEqual(p256["@context"], [
    "https://www.w3.org/ns/did/v1",
    "https://w3id.org/security/suites/jws-2020/v1",
  ]);
});

Deno.test("did:key jwk representation gives JsonWebKey2020 with the same key material", async () => {
  const jwkMethod = createKeyMethod({ representation: "jwk" });
  const did = "did:key:z6MkiTBz1ymuepAQ4HEHYSF1H8quG5GLVVQR3djdX3mDooWp";
  const doc = (await resolveDoc(did, jwkMethod)).didDocument as DidDocument;
  const [ed, x] = doc.verificationMethod!;
  assert.equal(ed!.type, "JsonWebKey2020");
  assert.equal(ed!.publicKeyJwk!.crv, "Ed25519");
  // base58 4zvwRjXU... of the vector, as base64url
  assert.equal(ed!.publicKeyJwk!.x, "O2onvM62pC1io6jQKm8Nc2UyFXcd4kOmOsBIoYtZ2ik");
  assert.equal(x!.publicKeyJwk!.crv, "X25519");
  assert.deepEqual(doc["@context"], [
    "https://www.w3.org/ns/did/v1",
    "https://w3id.org/security/suites/jws-2020/v1",
  ]);
  // secp256k1 as JWK: compressed point decompressed to x and y
  const k1 = didKeyDocument("did:key:zQ3shokFTS3brHcDQrn82RUDfCZESWL1ZdCEJwekUDPQiYBme", {
    representation: "jwk",
  });
  assert.ok(k1.ok);
  const jwk = k1.value.verificationMethod![0]!.publicKeyJwk!;
  assert.equal(jwk.kty, "EC");
  assert.equal(jwk.crv, "secp256k1");
  assert.equal(typeof jwk.y, "string");
  assert.equal((jwk.y as string).length, 43);
});

Deno.test("did:key multikey representation keeps the multibase key", () => {
  const did = "did:key:zDnaerx9CtbPJ1q36T5Ln5wYt3MQYeGRG5ehnPAmxcf5mDZpv";
  const doc = didKeyDocument(did, { representation: "multikey" });
  assert.ok(doc.ok);
  const vm = doc.value.verificationMethod![0]!;
  assert.equal(vm.type, "Multikey");
  assert.equal(vm.publicKeyMultibase, "zDnaerx9CtbPJ1q36T5Ln5wYt3MQYeGRG5ehnPAmxcf5mDZpv");
  assert.deepEqual(doc.value.keyAgreement, [vm.id]);
});

Deno.test("did:key Ed25519 agrees with key-did-resolver where that library is right", async () => {
  const resolver = new Resolver(getResolver());
  const did = "did:key:z6MkjchhfUsD6mmvni8mCdXHw216Xrm9bQe2mBH1P5RDjVJG";
  const theirs = await resolver.resolve(did);
  const ours = await resolveDoc(did);
  assert.deepEqual(
    normalizeDocument(ours.didDocument as Record<string, unknown>),
    normalizeDocument(theirs.didDocument as unknown as Record<string, unknown>),
  );
});

Deno.test("did:key rejects bad multibase, codec, length and points with invalidDid", async () => {
  const ed = new Uint8Array(34);
  ed[0] = 0xed;
  ed[1] = 0x01;
  const cases = [
    "did:key:6MkiTBz1ymuepAQ4HEHYSF1H8quG5GLVVQR3djdX3mDooWp", // no multibase prefix
    "did:key:mO2onvM62pC1io6jQKm8Nc2UyFXcd4kOmOsBIoYtZ2ik", // base64 multibase: not did:key
    "did:key:z6MkiTBz1ymuepAQ4HEHYSF1H8quG5GLVVQR3djdX3mDooW0", // 0 is not base58
    "did:key:z6MkiTBz1ymuepAQ4HEHYSF1H8quG5GLVVQR3djdX3mDoo", // truncated key
    "did:key:" + encodeMultibase(Uint8Array.of(0x12, 0x20, ...new Uint8Array(32))), // sha256 codec
    "did:key:" + encodeMultibase(Uint8Array.of(0xe7, 0x01, 0x02, ...new Uint8Array(32))), // not on curve
    "did:key:" + encodeMultibase(Uint8Array.of(0x80, 0x24, 0x05, ...new Uint8Array(32))), // bad prefix
    "did:key:z6MkiTBz1ymuepAQ4HEHYSF1H8quG5GLVVQR3djdX3mDooWp:extra",
  ];
  for (const did of cases) {
    const res = await resolveDoc(did);
    assert.equal(res.didDocument, null, did);
    assert.equal(res.didResolutionMetadata.error, "invalidDid", did);
    assert.equal(typeof res.didResolutionMetadata.message, "string");
    assert.deepEqual(res.didDocumentMetadata, {});
  }
});

Deno.test("did:key ignores the DID URL parts when resolving", async () => {
  const res = await resolveDoc(
    "did:key:z6MkiTBz1ymuepAQ4HEHYSF1H8quG5GLVVQR3djdX3mDooWp#z6MkiTBz1ymuepAQ4HEHYSF1H8quG5GLVVQR3djdX3mDooWp",
  );
  assert.equal(res.didDocument?.id, "did:key:z6MkiTBz1ymuepAQ4HEHYSF1H8quG5GLVVQR3djdX3mDooWp");
  assert.equal(keyMethod.deterministic, true);
  assert.equal(keyMethod.name, "key");
});
