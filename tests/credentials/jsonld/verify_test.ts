import assert from "node:assert/strict";
import { signCredential } from "../../../src/credentials/jsonld/sign.ts";
import { verifyCredential } from "../../../src/credentials/jsonld/verify.ts";
import { createDocumentLoader } from "../../../src/credentials/jsonld/document_loader.ts";
import type { LdProofSuiteName } from "../../../src/credentials/jsonld/sign.ts";
import { didKeyIdentity, resolveDidKey, sampleCredential, staticResolver } from "./test_keys.ts";

const SUITES: LdProofSuiteName[] = ["Ed25519Signature2018", "Ed25519Signature2020"];

type Json = Record<string, unknown>;
const subjectOf = (vc: Json) => vc.credentialSubject as Json;
const proofOf = (vc: Json) => vc.proof as Json;

for (const suite of SUITES) {
  Deno.test(`${suite}: a credential with an inline context signs and verifies`, async () => {
    const issuer = didKeyIdentity();
    const signed = await signCredential(sampleCredential(issuer.did), {
      keyPair: issuer.keyPair,
      suite,
    });
    assert.equal(proofOf(signed).type, suite);
    const result = await verifyCredential(signed, { resolveDid: resolveDidKey });
    assert.deepEqual(result, {
      verified: true,
      issuer: issuer.did,
      verificationMethod: issuer.keyPair.id,
    });
  });

  Deno.test(`${suite}: an altered credentialSubject is not verified`, async () => {
    const issuer = didKeyIdentity();
    const signed = await signCredential(sampleCredential(issuer.did), {
      keyPair: issuer.keyPair,
      suite,
    });
    subjectOf(signed).name = "Mallory";
    const result = await verifyCredential(signed, { resolveDid: resolveDidKey });
    assert.equal(result.verified, false);
    assert.match(result.error ?? "", /Invalid signature/);
  });

  Deno.test(`${suite}: an altered proof value is not verified`, async () => {
    const issuer = didKeyIdentity();
    const signed = await signCredential(sampleCredential(issuer.did), {
      keyPair: issuer.keyPair,
      suite,
    });
    const proof = proofOf(signed);
    const field = suite === "Ed25519Signature2018" ? "jws" : "proofValue";
    const value = String(proof[field]);
    // Change one character in the middle of the signature (stays valid base58/base64url).
    const i = value.length - 20;
    proof[field] = value.slice(0, i) + (value[i] === "A" ? "B" : "A") + value.slice(i + 1);
    const result = await verifyCredential(signed, { resolveDid: resolveDidKey });
    assert.equal(result.verified, false);
    assert.ok(result.error);
  });

  Deno.test(`${suite}: a signature by another key over the issuer's method is not verified`, async () => {
    const issuer = didKeyIdentity();
    const attacker = didKeyIdentity();
    const signed = await signCredential(sampleCredential(issuer.did), {
      // claims the issuer's verification method, signs with the attacker's key
      keyPair: { ...attacker.keyPair, id: issuer.keyPair.id, controller: issuer.did },
      suite,
    });
    const result = await verifyCredential(signed, { resolveDid: resolveDidKey });
    assert.equal(result.verified, false);
    assert.match(result.error ?? "", /Invalid signature/);
  });
}

Deno.test("a proof by a key whose controller is not the issuer is not verified", async () => {
  const issuer = didKeyIdentity();
  const other = didKeyIdentity();
  const signed = await signCredential(sampleCredential(issuer.did), {
    keyPair: other.keyPair, // valid signature by other's own key
    suite: "Ed25519Signature2018",
  });
  const result = await verifyCredential(signed, { resolveDid: resolveDidKey });
  assert.equal(result.verified, false);
  assert.match(result.error ?? "", /issuer must match the verification method controller/);
});

Deno.test("a key listed only under authentication, not assertionMethod, is not verified", async () => {
  const id = didKeyIdentity();
  const did = "did:example:issuer";
  const vmId = `${did}#key-1`;
  const resolveDid = staticResolver([{
    id: did,
    verificationMethod: [{
      id: "#key-1", // relative reference, as some resolvers return
      type: "Ed25519VerificationKey2018",
      controller: did,
      publicKeyBase58: (await resolveDidKey(id.did))!.verificationMethod![0]!.publicKeyBase58,
    }],
    authentication: ["#key-1"],
  }]);
  const signed = await signCredential(sampleCredential(did), {
    keyPair: { ...id.keyPair, id: vmId, controller: did },
    suite: "Ed25519Signature2020",
  });
  const result = await verifyCredential(signed, { resolveDid });
  assert.equal(result.verified, false);
  assert.match(
    result.error ?? "",
    /not authorized by controller for proof purpose "assertionMethod"/,
  );

  const allowed = staticResolver([{
    id: did,
    verificationMethod: [{
      id: vmId,
      type: "Ed25519VerificationKey2018",
      controller: did,
      publicKeyBase58: (await resolveDidKey(id.did))!.verificationMethod![0]!.publicKeyBase58,
    }],
    assertionMethod: ["#key-1"],
  }]);
  assert.equal((await verifyCredential(signed, { resolveDid: allowed })).verified, true);
});

Deno.test("a proof whose proofPurpose is not assertionMethod is not verified", async () => {
  const issuer = didKeyIdentity();
  const signed = await signCredential(sampleCredential(issuer.did), {
    keyPair: issuer.keyPair,
    suite: "Ed25519Signature2018",
  });
  proofOf(signed).proofPurpose = "authentication";
  const result = await verifyCredential(signed, { resolveDid: resolveDidKey });
  assert.equal(result.verified, false);
  assert.match(result.error ?? "", /proofPurpose must be "assertionMethod"/);
});

Deno.test("missing proof, unsupported proof type and missing issuer are reported", async () => {
  const issuer = didKeyIdentity();
  const unsigned = sampleCredential(issuer.did);
  const noProof = await verifyCredential(unsigned, { resolveDid: resolveDidKey });
  assert.deepEqual(noProof, {
    verified: false,
    error: "credential has no proof",
    issuer: issuer.did,
  });

  const bbs = {
    ...unsigned,
    proof: { type: "BbsBlsSignature2020", proofPurpose: "assertionMethod" },
  };
  const unsupported = await verifyCredential(bbs, { resolveDid: resolveDidKey });
  assert.match(unsupported.error ?? "", /unsupported proof type "BbsBlsSignature2020"/);

  const signed = await signCredential(unsigned, {
    keyPair: issuer.keyPair,
    suite: "Ed25519Signature2018",
  });
  delete signed.issuer;
  const noIssuer = await verifyCredential(signed, { resolveDid: resolveDidKey });
  assert.deepEqual(
    { verified: noIssuer.verified, error: noIssuer.error, issuer: noIssuer.issuer },
    { verified: false, error: "credential has no issuer", issuer: "" },
  );
});

Deno.test("an undefined term in the credential fails (jsonld safe mode), naming the term", async () => {
  const issuer = didKeyIdentity();
  const signed = await signCredential(sampleCredential(issuer.did), {
    keyPair: issuer.keyPair,
    suite: "Ed25519Signature2018",
  });
  subjectOf(signed).undefinedTerm = "sneaky";
  const result = await verifyCredential(signed, { resolveDid: resolveDidKey });
  assert.equal(result.verified, false);
  assert.match(result.error ?? "", /Safe mode validation error.*undefinedTerm/);
});

Deno.test("an expired credential is not verified", async () => {
  const issuer = didKeyIdentity();
  const credential = { ...sampleCredential(issuer.did), expirationDate: "2099-01-01T00:00:00Z" };
  const signed = await signCredential(credential, {
    keyPair: issuer.keyPair,
    suite: "Ed25519Signature2018",
  });
  const later = await verifyCredential(signed, {
    resolveDid: resolveDidKey,
    now: new Date("2100-01-01T00:00:00Z"),
  });
  assert.equal(later.verified, false);
  assert.match(later.error ?? "", /expired/i);
  assert.equal((await verifyCredential(signed, { resolveDid: resolveDidKey })).verified, true);
});

Deno.test("a resolver failure is a clear, unverified result", async () => {
  const issuer = didKeyIdentity();
  const signed = await signCredential(sampleCredential(issuer.did), {
    keyPair: issuer.keyPair,
    suite: "Ed25519Signature2018",
  });
  const result = await verifyCredential(signed, {
    resolveDid: () => Promise.reject(new Error("resolver offline")),
  });
  assert.equal(result.verified, false);
  assert.match(result.error ?? "", /could not resolve did:key:.*resolver offline/);
});

Deno.test("one reused (warm) loader verifies many credentials and resolves each DID once", async () => {
  const issuer = didKeyIdentity();
  let calls = 0;
  const resolveDid = (did: string) => {
    calls++;
    return resolveDidKey(did);
  };
  const documentLoader = createDocumentLoader({ resolveDid });
  for (const suite of SUITES) {
    const signed = await signCredential(sampleCredential(issuer.did), {
      keyPair: issuer.keyPair,
      suite,
    });
    const result = await verifyCredential(signed, { resolveDid, documentLoader });
    assert.equal(result.verified, true, result.error);
  }
  assert.equal(calls, 1);
});
