import assert from "node:assert/strict";
import { createWebMethod, didWebUrl } from "../../src/did/methods/web.ts";
import { parseDid } from "../../src/did/syntax.ts";
import type { DidResolutionResult } from "../../src/did/types.ts";
import { createSafeFetch } from "../../src/outbound/mod.ts";
import { didHost, type HostRoute, json, webDoc } from "./did_host.ts";

const open = createSafeFetch({ allowPrivate: true, requireHttps: false });

async function resolveWeb(
  did: string,
  opts: { timeoutMs?: number; fetch?: typeof open } = {},
): Promise<DidResolutionResult> {
  const parsed = parseDid(did);
  assert.ok(parsed, did);
  const method = createWebMethod({
    safeFetch: opts.fetch ?? open,
    useHttp: true,
    timeoutMs: opts.timeoutMs,
  });
  return await method.resolve(parsed, {});
}

function host(routes: Record<string, HostRoute>) {
  return didHost(routes);
}

Deno.test("didWebUrl follows the did:web spec: root, path segments, %3A port, https", () => {
  assert.deepEqual(didWebUrl("w3c-ccg.github.io"), {
    ok: true,
    value: "https://w3c-ccg.github.io/.well-known/did.json",
  });
  assert.deepEqual(didWebUrl("w3c-ccg.github.io:user:alice"), {
    ok: true,
    value: "https://w3c-ccg.github.io/user/alice/did.json",
  });
  assert.deepEqual(didWebUrl("example.com%3A3000:user:alice"), {
    ok: true,
    value: "https://example.com:3000/user/alice/did.json",
  });
  assert.deepEqual(didWebUrl("Example.COM%3a8443", true), {
    ok: true,
    value: "http://example.com:8443/.well-known/did.json",
  });
  for (
    const bad of [
      "exa_mple.com",
      "example.com%3A",
      "example.com%3A99999",
      "a.com:..",
      "a.com::b",
      "a.com:%2e%2e",
      "a.com:x%2Fy",
      "%41.com",
    ]
  ) {
    assert.equal(didWebUrl(bad).ok, false, bad);
  }
});

Deno.test("did:web resolves the root document from /.well-known/did.json on a %3A port", async () => {
  const h = host({ "/.well-known/did.json": (_r, did) => json(webDoc(did)) });
  try {
    const r = await resolveWeb(h.did);
    assert.equal(r.didResolutionMetadata.error, undefined, r.didResolutionMetadata.message);
    assert.deepEqual(r.didDocument, webDoc(h.did));
    assert.equal(r.didResolutionMetadata.contentType, "application/did+ld+json");
    assert.deepEqual(h.seen, ["/.well-known/did.json"]);
  } finally {
    await h.close();
  }
});

Deno.test("did:web with path segments fetches /<path>/did.json", async () => {
  const h = host({ "/user/alice/did.json": (_r, did) => json(webDoc(`${did}:user:alice`)) });
  try {
    const r = await resolveWeb(`${h.did}:user:alice`);
    assert.equal(r.didResolutionMetadata.error, undefined, r.didResolutionMetadata.message);
    assert.equal(r.didDocument?.id, `${h.did}:user:alice`);
    assert.deepEqual(h.seen, ["/user/alice/did.json"]);
  } finally {
    await h.close();
  }
});

Deno.test("did:web: origin 404 and 410 are notFound", async () => {
  const h = host({ "/gone/did.json": () => new Response("gone", { status: 410 }) });
  try {
    const r404 = await resolveWeb(h.did);
    assert.equal(r404.didResolutionMetadata.error, "notFound");
    assert.equal(r404.didDocument, null);
    assert.match(r404.didResolutionMetadata.message!, /404/);
    const r410 = await resolveWeb(`${h.did}:gone`);
    assert.equal(r410.didResolutionMetadata.error, "notFound");
  } finally {
    await h.close();
  }
});

Deno.test("did:web: origin 500 is internalError, not notFound", async () => {
  const h = host({ "/.well-known/did.json": () => new Response("boom", { status: 500 }) });
  try {
    const r = await resolveWeb(h.did);
    assert.equal(r.didResolutionMetadata.error, "internalError");
    assert.match(r.didResolutionMetadata.message!, /500/);
  } finally {
    await h.close();
  }
});

Deno.test("did:web: a slow host times out as internalError within the timeout", async () => {
  // The host holds its answer until the test ends: the resolution can only have returned because
  // the timeout cut the call, and while the host was still holding.
  let release = () => {};
  const held = new Promise<void>((r) => release = r);
  let answered = false;
  const h = host({
    "/.well-known/did.json": async (_r, did) => {
      await held;
      answered = true;
      return json(webDoc(did));
    },
  });
  try {
    const r = await resolveWeb(h.did, { timeoutMs: 200 });
    assert.equal(r.didResolutionMetadata.error, "internalError");
    assert.match(r.didResolutionMetadata.message!, /within 200 ms/);
    assert.equal(answered, false, "the host had not answered yet");
  } finally {
    release();
    await h.close();
  }
});

Deno.test("did:web: a redirect is not followed and is internalError", async () => {
  const h = host({
    "/.well-known/did.json": () =>
      new Response(null, { status: 302, headers: { location: "/other/did.json" } }),
    "/other/did.json": (_r, did) => json(webDoc(did)),
  });
  try {
    const r = await resolveWeb(h.did);
    assert.equal(r.didResolutionMetadata.error, "internalError");
    assert.match(r.didResolutionMetadata.message!, /redirect/);
    assert.deepEqual(h.seen, ["/.well-known/did.json"]);
  } finally {
    await h.close();
  }
});

Deno.test("did:web: a body that is not JSON (or not an object) is internalError", async () => {
  const h = host({
    "/.well-known/did.json": () => new Response("<html>hello</html>"),
    "/arr/did.json": () => json([1, 2]),
  });
  try {
    const r = await resolveWeb(h.did);
    assert.equal(r.didResolutionMetadata.error, "internalError");
    assert.match(r.didResolutionMetadata.message!, /not JSON/);
    const a = await resolveWeb(`${h.did}:arr`);
    assert.equal(a.didResolutionMetadata.error, "internalError");
  } finally {
    await h.close();
  }
});

Deno.test("did:web: a document whose id is not the DID is refused (internalError)", async () => {
  const h = host({
    "/.well-known/did.json": () => json(webDoc("did:web:evil.example")),
  });
  try {
    const r = await resolveWeb(h.did);
    assert.equal(r.didResolutionMetadata.error, "internalError");
    assert.equal(r.didDocument, null);
    assert.match(r.didResolutionMetadata.message!, /did:web:evil\.example.*is not the DID/);
  } finally {
    await h.close();
  }
});

Deno.test("did:web: a body over 256 KiB is internalError (declared and streamed)", async () => {
  const big = (did: string) => ({ ...webDoc(did), pad: "x".repeat(300 * 1024) });
  const h = host({
    "/.well-known/did.json": (_r, did) => json(big(did)),
    "/stream/did.json": (_r, did) => {
      const bytes = new TextEncoder().encode(JSON.stringify(big(`${did}:stream`)));
      const body = new ReadableStream<Uint8Array>({
        start(c) {
          for (let i = 0; i < bytes.length; i += 16384) c.enqueue(bytes.slice(i, i + 16384));
          c.close();
        },
      });
      return new Response(body); // chunked: no content-length
    },
    "/small/did.json": (_r, did) => json({ ...webDoc(`${did}:small`), pad: "x".repeat(200_000) }),
  });
  try {
    for (const did of [h.did, `${h.did}:stream`]) {
      const r = await resolveWeb(did);
      assert.equal(r.didResolutionMetadata.error, "internalError", did);
      assert.match(r.didResolutionMetadata.message!, /larger than 262144 bytes/);
    }
    const ok = await resolveWeb(`${h.did}:small`);
    assert.equal(ok.didResolutionMetadata.error, undefined, "200 kB is under the cap");
  } finally {
    await h.close();
  }
});

Deno.test("did:web: a private address is refused when private addresses are not allowed", async () => {
  const h = host({ "/.well-known/did.json": (_r, did) => json(webDoc(did)) });
  try {
    const strict = createSafeFetch({ allowPrivate: false, requireHttps: false });
    const r = await resolveWeb(h.did, { fetch: strict });
    assert.equal(r.didResolutionMetadata.error, "internalError");
    assert.match(r.didResolutionMetadata.message!, /loopback/);
    assert.deepEqual(h.seen, [], "no request reached the host");
  } finally {
    await h.close();
  }
});

Deno.test("did:web uses https unless told otherwise (an http-only host is not reached)", async () => {
  const h = host({ "/.well-known/did.json": (_r, did) => json(webDoc(did)) });
  try {
    const parsed = parseDid(h.did)!;
    const strict = createSafeFetch({ allowPrivate: true, requireHttps: true });
    const r = await createWebMethod({ safeFetch: strict }).resolve(parsed, {});
    assert.equal(r.didResolutionMetadata.error, "internalError");
    assert.deepEqual(h.seen, [], "plain http was not used");
  } finally {
    await h.close();
  }
});

Deno.test("did:web: a malformed host is invalidDid without any request", async () => {
  const r = await resolveWeb("did:web:exa_mple.com");
  assert.equal(r.didResolutionMetadata.error, "invalidDid");
});
