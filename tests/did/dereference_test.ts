/**
 * DID URL dereferencing over HTTP (CONTRACT "Universal Resolver API and DID URL dereferencing") on
 * both prefixes, against a real local did:web host whose document writes its ids relative.
 */
import assert from "node:assert/strict";
import { createTestContext, type TestContext } from "../support/context.ts";
import { didHost, json } from "./did_host.ts";

const KEY_DID = "did:key:z6MkhaXgBZDvotDkL5257faiztiGiC2QtKLGpbnnEGta2doK";
const KEY_VM = `${KEY_DID}#z6MkhaXgBZDvotDkL5257faiztiGiC2QtKLGpbnnEGta2doK`;
const PREFIXES = ["/dids/", "/1.0/identifiers/"];
const DEREF = "application/did-url-dereferencing";

/** A did:web document with relative ids, an embedded method and two services. */
function relativeDoc(did: string): Record<string, unknown> {
  return {
    "@context": ["https://www.w3.org/ns/did/v1"],
    id: did,
    verificationMethod: [{
      id: "#key-1",
      type: "Ed25519VerificationKey2018",
      controller: did,
      publicKeyBase58: "H3C2AVvLMv6gmMNam3uVAjZpfkcJCwDwnZn6z3wXmqPV",
    }],
    authentication: ["#key-1"],
    keyAgreement: [{
      id: "#agree-1",
      type: "X25519KeyAgreementKey2019",
      controller: did,
      publicKeyBase58: "JhNWeSVLMYccCk7iopQW4guaSJTojqpMEELgSLhKwRr",
    }],
    service: [
      { id: "#files", type: "LinkedDomains", serviceEndpoint: "https://files.example/base/dir/" },
      {
        id: `${did}#didcomm`,
        type: "DIDCommMessaging",
        serviceEndpoint: { uri: "https://agent.example/inbox", accept: ["didcomm/v2"] },
      },
    ],
  };
}

async function withWeb(fn: (ctx: TestContext, token: string, did: string) => Promise<void>) {
  const host = didHost({ "/.well-known/did.json": (_req, did) => json(relativeDoc(did)) });
  const ctx = await createTestContext();
  try {
    await fn(ctx, await ctx.token(), host.did);
  } finally {
    await ctx.close();
    await host.close();
  }
}

const enc = (s: string) => s.replaceAll("#", "%23").replaceAll("?", "%3F");

Deno.test("dereference: a did:key verification method id, by fragment, on both prefixes", async () => {
  const ctx = await createTestContext();
  try {
    const token = await ctx.token();
    for (const prefix of PREFIXES) {
      const res = await ctx.call("GET", prefix + enc(KEY_VM), { token });
      assert.equal(res.status, 200, await res.clone().text());
      assert.equal(res.headers.get("content-type"), "application/did+ld+json");
      const vm = await res.json();
      assert.equal(vm.id, KEY_VM);
      assert.equal(vm.type, "Ed25519VerificationKey2018");
      assert.equal(vm.controller, KEY_DID);

      // The whole DID URL percent-encoded (did%3A…) reads the same.
      const whole = await ctx.call("GET", prefix + encodeURIComponent(KEY_VM), { token });
      assert.equal((await whole.json()).id, KEY_VM);

      // The dereferencing result when asked for.
      const r = await ctx.call("GET", prefix + enc(KEY_VM), { token, headers: { accept: DEREF } });
      assert.equal(r.status, 200);
      assert.equal(r.headers.get("content-type"), DEREF);
      const body = await r.json();
      assert.deepEqual(Object.keys(body).sort(), [
        "contentMetadata",
        "contentStream",
        "dereferencingMetadata",
      ]);
      assert.equal(body.dereferencingMetadata.contentType, "application/did+ld+json");
      assert.equal(body.contentStream.id, KEY_VM);

      const ld = await ctx.call("GET", prefix + enc(KEY_VM), {
        token,
        headers: { accept: 'application/ld+json;profile="https://w3id.org/did-url-dereferencing"' },
      });
      assert.equal(ld.status, 200);
      assert.match(ld.headers.get("content-type")!, /did-url-dereferencing/);
      assert.equal((await ld.json()).contentStream.id, KEY_VM);
    }
  } finally {
    await ctx.close();
  }
});

Deno.test("dereference: did:web with relative ids: methods, embedded methods and services", async () => {
  await withWeb(async (ctx, token, did) => {
    for (const prefix of PREFIXES) {
      for (const frag of ["key-1", "agree-1", "files", "didcomm"]) {
        const res = await ctx.call("GET", `${prefix}${did}%23${frag}`, { token });
        assert.equal(res.status, 200, `${frag}: ${await res.clone().text()}`);
        const resource = await res.json();
        assert.ok(
          resource.id === `#${frag}` || resource.id === `${did}#${frag}`,
          `${frag} → ${resource.id}`,
        );
      }
      const missing = await ctx.call("GET", `${prefix}${did}%23nope`, {
        token,
        headers: { accept: DEREF },
      });
      assert.equal(missing.status, 404);
      const body = await missing.json();
      assert.equal(body.dereferencingMetadata.error, "notFound");
      assert.match(body.dereferencingMetadata.message, /#nope/);
      assert.equal(body.contentStream, null);
    }
  });
});

Deno.test("dereference: service + relativeRef answers 303 with the RFC 3986 resolved Location", async () => {
  await withWeb(async (ctx, token, did) => {
    const cases: [string, string][] = [
      // HTTP query
      [`${did}?service=files&relativeRef=%2Fdocs%2Fa.pdf`, "https://files.example/docs/a.pdf"],
      [`${did}?service=files&relativeRef=sub%2Fb.txt`, "https://files.example/base/dir/sub/b.txt"],
      [`${did}?service=files&relativeRef=..%2Fup.txt`, "https://files.example/base/up.txt"],
      // encoded inside the segment
      [`${did}%3Fservice%3Dfiles%26relativeRef%3D%2Fx`, "https://files.example/x"],
      // absolute service id in the document; DIDComm endpoint object → its uri
      [`${did}?service=didcomm&relativeRef=%3Fa%3D1`, "https://agent.example/inbox?a=1"],
    ];
    for (const prefix of PREFIXES) {
      for (const [path, location] of cases) {
        const res = await ctx.call("GET", prefix + path, { token });
        assert.equal(res.status, 303, `${path}: ${await res.clone().text()}`);
        assert.equal(res.headers.get("location"), location, path);
        await res.body?.cancel();
      }
      // noCache is a resolver option, never a DID parameter.
      const nc = await ctx.call(
        "GET",
        `${prefix}${did}?service=files&relativeRef=%2Fz&noCache=true`,
        { token },
      );
      assert.equal(nc.status, 303);
      assert.equal(nc.headers.get("location"), "https://files.example/z");

      // service alone: the document with that service only; with text/uri-list, a redirect.
      const alone = await ctx.call("GET", `${prefix}${did}?service=files`, { token });
      assert.equal(alone.status, 200);
      const doc = await alone.json();
      assert.equal(doc.id, did);
      assert.deepEqual(doc.service.map((s: { id: string }) => s.id), ["#files"]);
      const list = await ctx.call("GET", `${prefix}${did}?service=files`, {
        token,
        headers: { accept: "text/uri-list" },
      });
      assert.equal(list.status, 303);
      assert.equal(list.headers.get("location"), "https://files.example/base/dir/");

      const unknown = await ctx.call("GET", `${prefix}${did}?service=nope&relativeRef=%2Fa`, {
        token,
      });
      assert.equal(unknown.status, 404);
      assert.equal((await unknown.json()).dereferencingMetadata.error, "notFound");
    }
  });
});

Deno.test("dereference: errors are dereferencing results with DID Core keywords, never 5xx", async () => {
  const ctx = await createTestContext();
  try {
    const token = await ctx.token();
    const cases: [string, number, string][] = [
      [`${KEY_DID}%23bad%20frag`, 400, "invalidDidUrl"], // space in the fragment
      [`${KEY_DID}%23a%23b`, 400, "invalidDidUrl"], // "#" inside a fragment
      [`did:key:z6Mk!bad%23frag`, 400, "invalidDid"], // the DID part is broken
      [`DID:key:abc%23frag`, 400, "invalidDid"],
      [`${KEY_DID}%23nope`, 404, "notFound"],
      [`${KEY_DID}/some/path`, 404, "notFound"], // did:key defines no paths
      [`${KEY_DID}?unknownParam=1`, 404, "notFound"],
      [`${KEY_DID}?relativeRef=%2Fa`, 400, "invalidDidUrl"], // relativeRef without service
      [`${KEY_DID}?versionId=2`, 404, "notFound"], // did:key has no versions
      [`did:example:123%23key-1`, 501, "methodNotSupported"],
    ];
    for (const prefix of PREFIXES) {
      for (const [path, status, error] of cases) {
        const res = await ctx.call("GET", prefix + path, { token, headers: { accept: DEREF } });
        const text = await res.text();
        assert.equal(res.status, status, `${path}: ${text}`);
        const body = JSON.parse(text);
        const meta = body.dereferencingMetadata ?? body.didResolutionMetadata;
        assert.equal(meta.error, error, `${path}: ${text}`);
        assert.equal(typeof meta.message, "string");
        assert.ok(meta.message.length > 10, meta.message);
      }
      // Nothing acceptable offered for a DID URL: 406 representationNotSupported.
      const na = await ctx.call("GET", prefix + enc(KEY_VM), {
        token,
        headers: { accept: "image/png" },
      });
      assert.equal(na.status, 406);
      assert.equal((await na.json()).dereferencingMetadata.error, "representationNotSupported");
    }
  } finally {
    await ctx.close();
  }
});

Deno.test("dereference: same auth rule as /dids (401 without a token unless public)", async () => {
  const ctx = await createTestContext();
  try {
    for (const prefix of PREFIXES) {
      const res = await ctx.call("GET", prefix + enc(KEY_VM));
      assert.equal(res.status, 401);
      await res.body?.cancel();
    }
    for (const path of ["/1.0/methods", "/1.0/testIdentifiers", "/1.0/properties"]) {
      const res = await ctx.call("GET", path);
      assert.equal(res.status, 401, path);
      await res.body?.cancel();
    }
  } finally {
    await ctx.close();
  }
});
