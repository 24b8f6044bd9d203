import assert from "node:assert/strict";
import {
  createDocumentLoader,
  JsonLdLoaderError,
} from "../../../src/credentials/jsonld/document_loader.ts";
import { BUNDLED_CONTEXTS } from "../../../src/credentials/jsonld/contexts/index.ts";
import { signCredential } from "../../../src/credentials/jsonld/sign.ts";
import { verifyCredential } from "../../../src/credentials/jsonld/verify.ts";
import { didKeyIdentity, resolveDidKey, sampleCredential, staticResolver } from "./test_keys.ts";

const REQUIRED = [
  "https://www.w3.org/2018/credentials/v1",
  "https://www.w3.org/ns/credentials/v2",
  "https://w3id.org/security/suites/ed25519-2018/v1",
  "https://w3id.org/security/suites/ed25519-2020/v1",
  "https://w3id.org/security/v1",
  "https://w3id.org/security/v2",
  "https://www.w3.org/ns/did/v1",
  "https://w3id.org/did/v1",
  "https://w3id.org/security/suites/x25519-2019/v1",
  "https://w3id.org/security/suites/x25519-2020/v1",
];

Deno.test("every required context is bundled and is a JSON-LD context document", async () => {
  const load = createDocumentLoader();
  for (const url of REQUIRED) {
    const { document, documentUrl } = await load(url);
    assert.equal(documentUrl, url);
    assert.equal(typeof (document as Record<string, unknown>)["@context"], "object", url);
    assert.ok(BUNDLED_CONTEXTS.has(url));
  }
});

Deno.test("an unknown remote context is refused at once and never fetched", async () => {
  let hits = 0;
  const server = Deno.serve({ port: 0, hostname: "127.0.0.1", onListen() {} }, () => {
    hits++;
    return Response.json({ "@context": { nick: "https://example.org/nick" } });
  });
  try {
    const url = `http://127.0.0.1:${server.addr.port}/context.jsonld`;
    const load = createDocumentLoader();
    await assert.rejects(load(url), (e: unknown) => {
      assert.ok(e instanceof JsonLdLoaderError);
      assert.equal(e.code, "unknown_context");
      assert.equal(e.url, url);
      return true;
    });

    // A credential that uses the context: signed with the context supplied explicitly,
    // then verified with the offline loader, which must not fetch it (the host counts requests).
    const issuer = didKeyIdentity();
    const credential = sampleCredential(issuer.did);
    credential["@context"] = [...(credential["@context"] as unknown[]), url];
    (credential.credentialSubject as Record<string, unknown>).nick = "al";
    const withContext = createDocumentLoader({
      contexts: new Map([[url, { "@context": { nick: "https://example.org/nick" } }]]),
    });
    const signed = await signCredential(credential, {
      keyPair: issuer.keyPair,
      suite: "Ed25519Signature2018",
      documentLoader: withContext,
    });
    const result = await verifyCredential(signed, { resolveDid: resolveDidKey });
    assert.equal(result.verified, false);
    assert.equal(
      result.error,
      `The JSON-LD context ${url} is not bundled with this service and is not under ` +
        "JSONLD_CONTEXT_ALLOW, which is not set; an operator can allow its URL prefix there.",
    );
    assert.equal(hits, 0);
  } finally {
    await server.shutdown();
  }
});

Deno.test("a DID URL with a fragment dereferences to an Ed25519VerificationKey2020", async () => {
  const { did, keyPair } = didKeyIdentity(new Uint8Array(32).fill(7));
  const load = createDocumentLoader({ resolveDid: resolveDidKey });
  const { document } = await load(keyPair.id);
  assert.deepEqual(document, {
    "@context": "https://w3id.org/security/suites/ed25519-2020/v1",
    id: keyPair.id,
    type: "Ed25519VerificationKey2020",
    controller: did,
    // did:key fingerprint == publicKeyMultibase for Ed25519
    publicKeyMultibase: did.slice("did:key:".length),
  });
  const controller = await load(did);
  assert.deepEqual(controller.document, {
    "@context": "https://www.w3.org/ns/did/v1",
    id: did,
    assertionMethod: [keyPair.id],
    authentication: [keyPair.id],
    capabilityInvocation: [keyPair.id],
    capabilityDelegation: [keyPair.id],
    keyAgreement: [(await resolveDidKey(did))!.keyAgreement![0] as { id: string }].map((k) => k.id),
  });
});

Deno.test("JWK and multibase verification methods verify like base58 ones", async () => {
  const id = didKeyIdentity();
  const multibase = id.did.slice("did:key:".length);
  const x = btoa(String.fromCharCode(...id.keyPair.publicKey)).replace(/\+/g, "-")
    .replace(/\//g, "_").replace(/=+$/, "");
  const forms = [
    { type: "JsonWebKey2020", publicKeyJwk: { kty: "OKP", crv: "Ed25519", x } },
    { type: "Multikey", publicKeyMultibase: multibase },
    { type: "Ed25519VerificationKey2020", publicKeyMultibase: multibase },
  ];
  for (const form of forms) {
    const did = "did:web:issuer.example";
    const vm = { id: `${did}#k`, controller: did, ...form };
    const resolveDid = staticResolver([{
      id: did,
      verificationMethod: [vm],
      assertionMethod: [vm.id],
    }]);
    for (const suite of ["Ed25519Signature2018", "Ed25519Signature2020"] as const) {
      const signed = await signCredential(sampleCredential(did), {
        keyPair: { ...id.keyPair, id: vm.id, controller: did },
        suite,
      });
      const result = await verifyCredential(signed, { resolveDid });
      assert.equal(result.verified, true, `${form.type} / ${suite}: ${result.error}`);
    }
  }
});

Deno.test("DID dereferencing errors carry a code", async () => {
  const { did } = didKeyIdentity();
  const codeOf = async (p: Promise<unknown>) => {
    try {
      await p;
    } catch (e: unknown) {
      if (e instanceof JsonLdLoaderError) return e.code;
      throw e;
    }
    return "no error";
  };
  assert.equal(await codeOf(createDocumentLoader()(did)), "did_resolver_missing");
  const load = createDocumentLoader({ resolveDid: resolveDidKey });
  assert.equal(await codeOf(load(`${did}#nope`)), "verification_method_not_found");
  const x25519 = (await resolveDidKey(did))!.keyAgreement![0] as { id: string };
  assert.equal(await codeOf(load(x25519.id)), "unsupported_verification_method");
  assert.equal(await codeOf(load(`${did}/path#k`)), "verification_method_not_found");
  assert.equal(
    await codeOf(createDocumentLoader({ resolveDid: () => Promise.resolve(null) })(did)),
    "did_not_resolved",
  );
  // a resolver that answers with another DID's document is refused
  const swapped = createDocumentLoader({
    resolveDid: () => Promise.resolve({ id: "did:example:someone-else" }),
  });
  assert.equal(await codeOf(swapped(did)), "did_not_resolved");
});
