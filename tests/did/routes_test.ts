import assert from "node:assert/strict";
import { createTestContext, expectJson, type TestContext } from "../support/context.ts";
import { didHost, json, webDoc } from "./did_host.ts";

const KEY_DID = "did:key:z6MkhaXgBZDvotDkL5257faiztiGiC2QtKLGpbnnEGta2doK";

async function withCtx(
  fn: (ctx: TestContext, token: string) => Promise<void>,
  opts: Parameters<typeof createTestContext>[0] = {},
) {
  const ctx = await createTestContext(opts);
  try {
    await fn(ctx, await ctx.token());
  } finally {
    await ctx.close();
  }
}

type Result = {
  didDocument: Record<string, unknown> | null;
  didDocumentMetadata: Record<string, unknown>;
  didResolutionMetadata: Record<string, unknown>;
};

async function body(res: Response, status: number): Promise<Result> {
  return await expectJson(res, status) as Result;
}

Deno.test("GET /dids/{did:key}: 200, whole result, servedFromCache false, immutable Cache-Control", async () => {
  await withCtx(async (ctx, token) => {
    const res = await ctx.call("GET", `/dids/${KEY_DID}`, { token });
    assert.equal(res.headers.get("content-type"), "application/json");
    assert.equal(res.headers.get("cache-control"), "private, max-age=86400, immutable");
    const r = await body(res, 200);
    assert.equal(r.didDocument?.id, KEY_DID);
    assert.deepEqual(Object.keys(r).sort(), [
      "didDocument",
      "didDocumentMetadata",
      "didResolutionMetadata",
    ]);
    const vm = (r.didDocument!.verificationMethod as Record<string, string>[])[0]!;
    // base58 of the multibase value without its 0xed01 multicodec prefix
    assert.equal(vm.publicKeyBase58, "48GdbJyVULjHDaBNS6ct9oAGtckZUS5v8asrPzvZ7R1w");
    assert.equal(r.didResolutionMetadata.servedFromCache, false);
    assert.equal(r.didResolutionMetadata.contentType, "application/did+ld+json");
    // Memoized, and still not "from the cache": memo hits of derived documents are not cache hits.
    const again = await body(await ctx.call("GET", `/dids/${KEY_DID}`, { token }), 200);
    assert.equal(again.didResolutionMetadata.servedFromCache, false);
    assert.deepEqual(again.didDocument, r.didDocument);
  });
});

Deno.test("GET /dids: Accept for the whole result answers with the matching content type", async () => {
  await withCtx(async (ctx, token) => {
    const cases: [string | undefined, string][] = [
      [undefined, "application/json"],
      ["*/*", "application/json"],
      ["application/json", "application/json"],
      ["application/did-resolution", "application/did-resolution"],
      [
        'application/ld+json;profile="https://w3id.org/did-resolution"',
        'application/ld+json;profile="https://w3id.org/did-resolution"',
      ],
      ["text/html, application/json;q=0.8", "application/json"],
      ["application/did+json;q=0.5, application/did-resolution", "application/did-resolution"],
    ];
    for (const [accept, type] of cases) {
      const res = await ctx.call("GET", `/dids/${KEY_DID}`, {
        token,
        headers: accept ? { accept } : {},
      });
      assert.equal(res.status, 200, String(accept));
      assert.equal(res.headers.get("content-type"), type, String(accept));
      const r = JSON.parse(await res.text());
      assert.equal(r.didDocument.id, KEY_DID);
      assert.ok("didResolutionMetadata" in r, String(accept));
    }
  });
});

Deno.test("GET /dids: document media types answer with the bare document", async () => {
  await withCtx(async (ctx, token) => {
    for (const type of ["application/did+json", "application/did+ld+json", "application/did"]) {
      const res = await ctx.call("GET", `/dids/${KEY_DID}`, { token, headers: { accept: type } });
      assert.equal(res.status, 200, type);
      assert.equal(res.headers.get("content-type"), type);
      const doc = JSON.parse(await res.text());
      assert.equal(doc.id, KEY_DID);
      assert.equal(doc.didResolutionMetadata, undefined, "bare document");
      assert.ok(Array.isArray(doc.verificationMethod));
    }
  });
});

Deno.test("GET /dids: an unacceptable Accept is 406 with a representationNotSupported result", async () => {
  await withCtx(async (ctx, token) => {
    for (const accept of ["text/html", "application/ld+json", "application/json;q=0"]) {
      const res = await ctx.call("GET", `/dids/${KEY_DID}`, { token, headers: { accept } });
      const r = await body(res, 406);
      assert.equal(r.didDocument, null, accept);
      assert.equal(r.didResolutionMetadata.error, "representationNotSupported");
      assert.equal(typeof r.didResolutionMetadata.message, "string");
      assert.equal(res.headers.get("cache-control"), "no-store");
    }
  });
});

Deno.test("GET /dids: invalidDid 400 and methodNotSupported 501 are results with error strings", async () => {
  await withCtx(async (ctx, token) => {
    for (const bad of ["not-a-did", "did:key:", "did:KEY:abc", "did:key:z6Mk%zz", "did:key:zzzz"]) {
      const res = await ctx.call("GET", `/dids/${bad}`, { token });
      const r = await body(res, 400);
      assert.equal(r.didDocument, null, bad);
      assert.equal(r.didResolutionMetadata.error, "invalidDid", bad);
      assert.equal(typeof r.didResolutionMetadata.message, "string");
      assert.deepEqual(r.didDocumentMetadata, {});
      assert.equal(res.headers.get("cache-control"), "no-store");
    }
    const res = await ctx.call("GET", "/dids/did:example:123456789abcdefghi", { token });
    const r = await body(res, 501);
    assert.equal(r.didResolutionMetadata.error, "methodNotSupported");
    assert.match(r.didResolutionMetadata.message as string, /"example"/);
  });
});

Deno.test("GET /dids: a failure with a document Accept still answers a result", async () => {
  await withCtx(async (ctx, token) => {
    const res = await ctx.call("GET", "/dids/did:example:123", {
      token,
      headers: { accept: "application/did+json" },
    });
    const r = await body(res, 501);
    assert.equal(r.didDocument, null);
    assert.equal(r.didResolutionMetadata.error, "methodNotSupported");
  });
});

Deno.test("GET /dids/{did:web}: 404 notFound, 500 internalError", async () => {
  const h = didHost({ "/broken/did.json": () => new Response("boom", { status: 500 }) });
  try {
    await withCtx(async (ctx, token) => {
      const nf = await body(await ctx.call("GET", `/dids/${h.did}:missing`, { token }), 404);
      assert.equal(nf.didResolutionMetadata.error, "notFound");
      const ie = await body(await ctx.call("GET", `/dids/${h.did}:broken`, { token }), 500);
      assert.equal(ie.didResolutionMetadata.error, "internalError");
      assert.equal(ie.didDocument, null);
    });
  } finally {
    await h.close();
  }
});

Deno.test("GET /dids: 410 when the (universal resolver) result says deactivated", async () => {
  const uni = didHost();
  uni.routes["/1.0/identifiers/did:example:gone"] = () =>
    json({
      didDocument: { id: "did:example:gone" },
      didDocumentMetadata: { deactivated: true },
      didResolutionMetadata: { contentType: "application/did+ld+json" },
    }, 410);
  uni.routes["/1.0/identifiers/did:example:alive"] = () =>
    json({
      didDocument: { id: "did:example:alive" },
      didDocumentMetadata: { created: "2020-01-01T00:00:00Z" },
      didResolutionMetadata: {},
    });
  try {
    await withCtx(async (ctx, token) => {
      const gone = await body(await ctx.call("GET", "/dids/did:example:gone", { token }), 410);
      assert.equal(gone.didDocumentMetadata.deactivated, true);
      assert.equal(gone.didDocument?.id, "did:example:gone");
      const alive = await body(await ctx.call("GET", "/dids/did:example:alive", { token }), 200);
      assert.equal(alive.didDocumentMetadata.created, "2020-01-01T00:00:00Z");
      assert.equal(alive.didResolutionMetadata.servedFromCache, false);
      const again = await body(await ctx.call("GET", "/dids/did:example:alive", { token }), 200);
      assert.equal(again.didResolutionMetadata.servedFromCache, true);
      assert.equal(uni.count("/1.0/identifiers/did:example:alive"), 1);
    }, { env: { UNIVERSAL_RESOLVER_URL: uni.url } });
  } finally {
    await uni.close();
  }
});

Deno.test("GET /dids: the path segment is raw; one starting with did%3A is decoded once", async () => {
  const h = didHost({ "/.well-known/did.json": (_r, did) => json(webDoc(did)) });
  try {
    await withCtx(async (ctx, token) => {
      // Raw: %3A of the port stays as written (Hono would decode a route param).
      const raw = await body(await ctx.call("GET", `/dids/${h.did}`, { token }), 200);
      assert.equal(raw.didDocument?.id, h.did);
      assert.ok(h.did.includes("%3A"));
      // Encoded whole: decoded exactly once, so the port's %253A becomes %3A.
      const encoded = encodeURIComponent(h.did);
      assert.ok(encoded.startsWith("did%3Aweb%3A127.0.0.1%253A"));
      const dec = await body(await ctx.call("GET", `/dids/${encoded}`, { token }), 200);
      assert.equal(dec.didDocument?.id, h.did);
      const key = await body(
        await ctx.call("GET", `/dids/${encodeURIComponent(KEY_DID)}`, { token }),
        200,
      );
      assert.equal(key.didDocument?.id, KEY_DID);
      // Not starting with did%3A: nothing is decoded, %3A inside a did:key id is invalid.
      const notDecoded = await body(
        await ctx.call("GET", `/dids/did:key%3A${KEY_DID.slice(8)}`, { token }),
        400,
      );
      assert.equal(notDecoded.didResolutionMetadata.error, "invalidDid");
      // Bad percent-encoding after did%3A.
      const bad = await body(await ctx.call("GET", "/dids/did%3Akey%3A%E0%A4%A", { token }), 400);
      assert.equal(bad.didResolutionMetadata.error, "invalidDid");
    });
  } finally {
    await h.close();
  }
});

Deno.test("GET /dids: 401 without a token; 200 without one when DID_RESOLUTION_PUBLIC=true", async () => {
  await withCtx(async (ctx) => {
    const res = await ctx.call("GET", `/dids/${KEY_DID}`);
    const e = await expectJson(res, 401);
    assert.equal(e.statusCode, 401);
    assert.equal(res.headers.get("www-authenticate"), "Bearer");
    const bad = await ctx.call("GET", `/dids/${KEY_DID}`, { token: "nope" });
    await expectJson(bad, 401);
  });
  await withCtx(async (ctx) => {
    const res = await ctx.call("GET", `/dids/${KEY_DID}`);
    const r = await body(res, 200);
    assert.equal(r.didDocument?.id, KEY_DID);
    assert.equal(res.headers.get("cache-control"), "public, max-age=86400, immutable");
  }, { env: { DID_RESOLUTION_PUBLIC: "true" } });
});

Deno.test("GET /dids is described in the OpenAPI document with the DidResolutionResult schema", async () => {
  await withCtx(async (ctx) => {
    const doc = await expectJson(await ctx.call("GET", "/openapi.json"), 200) as {
      paths: Record<string, { get?: { responses: Record<string, unknown> } }>;
      components: { schemas: Record<string, { properties?: Record<string, unknown> }> };
    };
    const op = doc.paths["/dids/{did}"]?.get;
    assert.ok(op, "path documented");
    for (const s of ["200", "400", "401", "404", "406", "410", "500", "501"]) {
      assert.ok(op.responses[s], s);
    }
    const schema = doc.components.schemas.DidResolutionResult!;
    assert.deepEqual(Object.keys(schema.properties!).sort(), [
      "didDocument",
      "didDocumentMetadata",
      "didResolutionMetadata",
    ]);
    const meta = doc.components.schemas.DidResolutionMetadata!;
    assert.ok(meta.properties!.servedFromCache);
    assert.ok(doc.components.schemas.VerificationMethod!.properties!.publicKeyBase58);
  });
});
