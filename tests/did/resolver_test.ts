import assert from "node:assert/strict";
import { createPeerDid2, createPeerDid4FromKeys } from "../../src/did/methods/peer.ts";
import { keyMethod } from "../../src/did/methods/key.ts";
import { createUniversalResolver, normalizeErrorCode } from "../../src/did/methods/universal.ts";
import { createDidResolver } from "../../src/did/mod.ts";
import { createRegistry } from "../../src/did/resolver.ts";
import type { DidMethod } from "../../src/did/types.ts";
import { keys } from "../../src/kv/mod.ts";
import { createSafeFetch } from "../../src/outbound/mod.ts";
import { createTestContext } from "../support/context.ts";
import { didHost, json } from "./did_host.ts";

const KEY_DID = "did:key:z6MkhaXgBZDvotDkL5257faiztiGiC2QtKLGpbnnEGta2doK";
const open = createSafeFetch({ allowPrivate: true, requireHttps: false });

async function ed25519Public(): Promise<Uint8Array> {
  const kp = await crypto.subtle.generateKey("Ed25519", true, ["sign", "verify"]) as CryptoKeyPair;
  return new Uint8Array(await crypto.subtle.exportKey("raw", kp.publicKey));
}

Deno.test("the registry routes by method and class, and refuses DID URLs and unknown methods", () => {
  const registry = createRegistry({ methods: [keyMethod] });
  const routed = registry.route(KEY_DID);
  assert.ok("parsed" in routed);
  assert.equal(routed.klass, "deterministic");
  assert.equal(routed.parsed.method, "key");

  const url = registry.route(`${KEY_DID}#z6Mk`);
  assert.ok(!("parsed" in url));
  assert.equal(url.didResolutionMetadata.error, "invalidDid");
  assert.match(url.didResolutionMetadata.message!, /DID URL/);

  const unknown = registry.route("did:example:123");
  assert.ok(!("parsed" in unknown));
  assert.equal(unknown.didResolutionMetadata.error, "methodNotSupported");

  const bad = registry.route("did:Key:abc");
  assert.ok(!("parsed" in bad));
  assert.equal(bad.didResolutionMetadata.error, "invalidDid");
});

Deno.test("a driver that throws gives an internalError result, not an exception", async () => {
  const throwingFakeMethod: DidMethod = {
    name: "boom",
    deterministic: false,
    resolve: () => Promise.reject(new Error("driver bug")),
  };
  const registry = createRegistry({ methods: [throwingFakeMethod] });
  const r = await registry.resolve("did:boom:1");
  assert.equal(r.didResolutionMetadata.error, "internalError");
  assert.match(r.didResolutionMetadata.message!, /driver bug/);
});

Deno.test("createDidResolver resolves did:key, did:jwk and did:peer:2 with DIDComm services", async () => {
  const ctx = await createTestContext();
  try {
    const resolver = ctx.services.resolver;
    assert.deepEqual(
      [...resolver.registry.methods.keys()],
      ["key", "jwk", "peer", "web", "webvh", "plc", "pkh"],
    );
    const k = await resolver.resolve(KEY_DID);
    assert.equal(k.didDocument?.id, KEY_DID);

    const jwkDid =
      "did:jwk:eyJjcnYiOiJQLTI1NiIsImt0eSI6IkVDIiwieCI6ImFjYklRaXVNczNpOF91c3pFakoydHBUdFJNNEVVM3l6OTFQSDZDZEgyVjAiLCJ5IjoiX0tjeUxqOXZXTXB0bm1LdG00NkdxRHo4d2Y3NEk1TEtncmwyR3pIM25TRSJ9";
    const j = await resolver.resolve(jwkDid);
    assert.equal(j.didResolutionMetadata.error, undefined, j.didResolutionMetadata.message);
    assert.equal(j.didDocument?.id, jwkDid);

    const peer = createPeerDid2({
      authentication: [await ed25519Public()],
      keyAgreement: [],
      services: [{ type: "did-communication", serviceEndpoint: "https://agent.example/didcomm" }],
    });
    const p = await resolver.resolve(peer);
    assert.equal(p.didResolutionMetadata.error, undefined, p.didResolutionMetadata.message);
    assert.equal(p.didDocument?.id, peer);
    assert.equal(p.didDocument?.service?.[0]?.serviceEndpoint, "https://agent.example/didcomm");
  } finally {
    await ctx.close();
  }
});

Deno.test("did:peer:4 short form resolves after its long form, also on another instance (KV)", async () => {
  const ctx = await createTestContext();
  try {
    const { shortDid, longDid } = createPeerDid4FromKeys({
      authentication: [await ed25519Public()],
      keyAgreement: [],
      services: [{ type: "did-communication", serviceEndpoint: "https://agent.example/didcomm" }],
    });
    const a = createDidResolver(ctx.services);
    const before = await a.resolve(shortDid);
    assert.equal(before.didResolutionMetadata.error, "notFound");
    const long = await a.resolve(longDid);
    assert.equal(long.didResolutionMetadata.error, undefined, long.didResolutionMetadata.message);
    assert.equal((await ctx.kv.get(keys.peerLongForm(shortDid))).value, longDid);

    const b = createDidResolver(ctx.services); // another instance: only KV is shared
    const short = await b.resolve(shortDid);
    assert.equal(short.didResolutionMetadata.error, undefined, short.didResolutionMetadata.message);
    assert.equal(short.didDocument?.id, shortDid);
    assert.equal(short.didResolutionMetadata.servedFromCache, false);
  } finally {
    await ctx.close();
  }
});

Deno.test("universal resolver fallback: results, bare documents, error spellings, id check", async () => {
  const uni = didHost();
  const path = (did: string) => `/1.0/identifiers/${did}`;
  uni.routes[path("did:ex:ok")] = () =>
    json({
      didDocument: { id: "did:ex:ok" },
      didDocumentMetadata: { versionId: "3" },
      didResolutionMetadata: { contentType: "application/did+ld+json", servedFromCache: true },
    });
  uni.routes[path("did:ex:bare")] = () => json({ id: "did:ex:bare" });
  uni.routes[path("did:ex:nf")] = () =>
    json({
      didDocument: null,
      didDocumentMetadata: {},
      didResolutionMetadata: { error: "https://www.w3.org/ns/did#NOT_FOUND", message: "gone" },
    }, 404);
  uni.routes[path("did:ex:plain404")] = () => new Response("nope", { status: 404 });
  uni.routes[path("did:ex:swap")] = () => json({ didDocument: { id: "did:ex:other" } });
  uni.routes[path("did:ex:five")] = () => new Response("oops", { status: 502 });
  try {
    const fallback = createUniversalResolver({ baseUrl: uni.url + "/", safeFetch: open });
    const registry = createRegistry({ methods: [], fallback });
    const ok = await registry.resolve("did:ex:ok");
    assert.equal(ok.didDocument?.id, "did:ex:ok");
    assert.equal(ok.didDocumentMetadata.versionId, "3");
    assert.equal(ok.didResolutionMetadata.servedFromCache, undefined, "upstream flag dropped");
    assert.equal((await registry.resolve("did:ex:bare")).didDocument?.id, "did:ex:bare");
    const nf = await registry.resolve("did:ex:nf");
    assert.equal(nf.didResolutionMetadata.error, "notFound");
    assert.equal(nf.didResolutionMetadata.message, "gone");
    assert.equal(
      (await registry.resolve("did:ex:plain404")).didResolutionMetadata.error,
      "notFound",
    );
    const swap = await registry.resolve("did:ex:swap");
    assert.equal(swap.didResolutionMetadata.error, "internalError");
    assert.equal(swap.didDocument, null);
    assert.equal(
      (await registry.resolve("did:ex:five")).didResolutionMetadata.error,
      "internalError",
    );
    const routed = registry.route("did:ex:ok");
    assert.ok("parsed" in routed && routed.klass === "network");
  } finally {
    await uni.close();
  }
  assert.equal(normalizeErrorCode("invalidDid"), "invalidDid");
  assert.equal(normalizeErrorCode("METHOD_NOT_SUPPORTED"), "methodNotSupported");
  assert.equal(normalizeErrorCode("somethingElse"), "internalError");
});
