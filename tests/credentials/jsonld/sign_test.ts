import assert from "node:assert/strict";
import { signCredential } from "../../../src/credentials/jsonld/sign.ts";
import { verifyCredential } from "../../../src/credentials/jsonld/verify.ts";
import { didKeyIdentity, resolveDidKey, sampleCredential } from "./test_keys.ts";

Deno.test("signing leaves the input untouched and sets the proof fields", async () => {
  const issuer = didKeyIdentity();
  const input = sampleCredential(issuer.did);
  const before = structuredClone(input);
  const date = new Date("2024-06-01T12:00:00Z");
  const signed = await signCredential(input, {
    keyPair: issuer.keyPair,
    suite: "Ed25519Signature2020",
    date,
  });
  assert.deepEqual(input, before);
  assert.deepEqual(signed["@context"], [
    ...(before["@context"] as unknown[]),
    "https://w3id.org/security/suites/ed25519-2020/v1",
  ]);
  const { proofValue, ...rest } = signed.proof;
  assert.deepEqual(rest, {
    type: "Ed25519Signature2020",
    created: "2024-06-01T12:00:00Z",
    verificationMethod: issuer.keyPair.id,
    proofPurpose: "assertionMethod",
  });
  assert.match(String(proofValue), /^z[1-9A-HJ-NP-Za-km-z]{80,90}$/);
});

Deno.test("Ed25519Signature2018 signing is deterministic and keeps credentials/v1 alone", async () => {
  const issuer = didKeyIdentity(new Uint8Array(32).fill(3));
  const date = new Date("2024-06-01T12:00:00Z");
  const opts = { keyPair: issuer.keyPair, suite: "Ed25519Signature2018" as const, date };
  const a = await signCredential(sampleCredential(issuer.did), opts);
  const b = await signCredential(sampleCredential(issuer.did), opts);
  assert.deepEqual(a, b);
  assert.deepEqual(a["@context"], sampleCredential(issuer.did)["@context"]);
  assert.match(
    String(a.proof.jws),
    /^eyJhbGciOiJFZERTQSIsImI2NCI6ZmFsc2UsImNyaXQiOlsiYjY0Il19\.\./,
  );
});

Deno.test("a 64-byte secret key (seed ‖ public key) signs too", async () => {
  const issuer = didKeyIdentity();
  const secretKey = new Uint8Array([...issuer.keyPair.secretKey, ...issuer.keyPair.publicKey]);
  const signed = await signCredential(sampleCredential(issuer.did), {
    keyPair: { ...issuer.keyPair, secretKey },
    suite: "Ed25519Signature2018",
  });
  assert.equal((await verifyCredential(signed, { resolveDid: resolveDidKey })).verified, true);
});

Deno.test("a key pair whose public key does not match its secret is refused", async () => {
  const a = didKeyIdentity();
  const b = didKeyIdentity();
  await assert.rejects(
    signCredential(sampleCredential(a.did), {
      keyPair: { ...a.keyPair, publicKey: b.keyPair.publicKey },
      suite: "Ed25519Signature2018",
    }),
    /does not belong/,
  );
  await assert.rejects(
    signCredential(sampleCredential(a.did), {
      keyPair: { ...a.keyPair, secretKey: new Uint8Array(31) },
      suite: "Ed25519Signature2018",
    }),
    /32 \(seed\) or 64/,
  );
});

Deno.test("a VC 2.0 credential signs and verifies with Ed25519Signature2020", async () => {
  const issuer = didKeyIdentity();
  const credential = {
    "@context": ["https://www.w3.org/ns/credentials/v2", { nick: "https://example.org/nick" }],
    type: ["VerifiableCredential"],
    issuer: issuer.did,
    validFrom: "2024-01-01T00:00:00Z",
    credentialSubject: { id: "did:example:holder", nick: "al" },
  };
  const signed = await signCredential(credential, {
    keyPair: issuer.keyPair,
    suite: "Ed25519Signature2020",
  });
  const result = await verifyCredential(signed, { resolveDid: resolveDidKey });
  assert.equal(result.verified, true, result.error);
});
