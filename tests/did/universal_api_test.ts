/**
 * `/1.0/identifiers`, `/1.0/methods`, `/1.0/testIdentifiers`, `/1.0/traits`, `/1.0/properties`
 * (CONTRACT, and the DIF Universal Resolver's API for traits).
 */
import assert from "node:assert/strict";
import { createTestContext } from "../support/context.ts";
import { didHost, json, webDoc } from "./did_host.ts";

Deno.test("/1.0/identifiers/{did} answers exactly what /dids/{did} answers", async () => {
  const host = didHost({ "/.well-known/did.json": (_req, did) => json(webDoc(did)) });
  const ctx = await createTestContext();
  try {
    const token = await ctx.token();
    const dids = [
      "did:key:z6MkhaXgBZDvotDkL5257faiztiGiC2QtKLGpbnnEGta2doK",
      host.did,
      "did:key:zBAD",
      "did:nope:123",
    ];
    for (const did of dids) {
      // Warm the cache, so that both answers below are served the same way.
      await (await ctx.call("GET", `/dids/${did}`, { token })).body?.cancel();
      for (const accept of [undefined, "application/did+json", "application/did-resolution"]) {
        const headers: Record<string, string> = accept ? { accept } : {};
        const a = await ctx.call("GET", `/dids/${did}`, { token, headers });
        const b = await ctx.call("GET", `/1.0/identifiers/${did}`, { token, headers });
        assert.equal(b.status, a.status, did);
        assert.equal(b.headers.get("content-type"), a.headers.get("content-type"));
        // The remaining max-age of a cached network answer may tick down by a second between the two.
        const maxAge = (r: Response) =>
          Number(/max-age=(\d+)/.exec(r.headers.get("cache-control") ?? "")?.[1] ?? -1);
        assert.equal(
          b.headers.get("cache-control")?.replace(/max-age=\d+/, ""),
          a.headers.get("cache-control")?.replace(/max-age=\d+/, ""),
        );
        assert.ok(
          Math.abs(maxAge(b) - maxAge(a)) <= 1,
          `${a.headers.get("cache-control")} vs ${b.headers.get("cache-control")}`,
        );
        assert.equal(await b.text(), await a.text(), `${did} ${accept}`);
      }
    }
  } finally {
    await ctx.close();
    await host.close();
  }
});

Deno.test("/1.0/methods, /1.0/testIdentifiers (every example resolves here), /1.0/traits, /1.0/properties", async () => {
  const host = didHost({ "/.well-known/did.json": (_req, did) => json(webDoc(did)) });
  const ctx = await createTestContext({
    env: { DID_TEST_IDENTIFIERS: host.did, DID_CACHE_TTL_SECONDS: "120" },
  });
  try {
    const token = await ctx.token();
    const methods = await (await ctx.call("GET", "/1.0/methods", { token })).json();
    assert.deepEqual(methods, ["key", "jwk", "peer", "web", "webvh", "plc", "pkh"]);

    const res = await ctx.call("GET", "/1.0/testIdentifiers", { token });
    assert.equal(res.status, 200);
    const examples: Record<string, string[]> = await res.json();
    assert.deepEqual(Object.keys(examples), ["key", "jwk", "peer", "web", "pkh"]);
    assert.deepEqual(examples.web, [host.did]);
    for (const [method, dids] of Object.entries(examples)) {
      assert.ok(dids.length > 0, method);
      for (const did of dids) {
        const r = await ctx.call("GET", `/1.0/identifiers/${did}`, { token });
        const body = await r.json();
        assert.equal(r.status, 200, `${did}: ${JSON.stringify(body)}`);
        assert.equal(body.didDocument.id, did);
      }
    }

    const props = await (await ctx.call("GET", "/1.0/properties", { token })).json();
    assert.deepEqual(props.methods, methods);

    // Traits as the Universal Resolver answers them: per method, the same names as /1.0/methods.
    const traits = await ctx.call("GET", "/1.0/traits", { token });
    assert.equal(traits.status, 200);
    assert.equal(traits.headers.get("content-type"), "application/json");
    const byMethod: Record<string, Record<string, boolean>> = await traits.json();
    assert.deepEqual(Object.keys(byMethod), methods);
    const names = ["updatable", "deactivatable", "enumerable", "historyAvailable", "humanReadable"];
    for (const [method, t] of Object.entries(byMethod)) {
      assert.deepEqual(Object.keys(t).sort(), [...names].sort(), method);
    }
    assert.deepEqual(byMethod.key, {
      updatable: false,
      deactivatable: false,
      enumerable: false,
      historyAvailable: false,
      humanReadable: false,
    });
    assert.equal(byMethod.web!.humanReadable, true);
    assert.equal(byMethod.web!.deactivatable, true);
    assert.equal(byMethod.webvh!.historyAvailable, true);
    // Same auth rule as /1.0/methods, and in the OpenAPI document.
    const anonymous = await ctx.call("GET", "/1.0/traits");
    assert.equal(anonymous.status, 401);
    await anonymous.body?.cancel();
    const doc = await (await ctx.call("GET", "/openapi.json")).json();
    assert.equal(doc.paths["/1.0/traits"].get.operationId, "listTraits");
    assert.ok(doc.paths["/1.0/traits"].get.responses["401"]);
    assert.equal(props.cache.networkTtlSeconds, 120);
    assert.equal(props.fallbackResolverConfigured, false);
    assert.equal(props.resolutionPublic, false);
    assert.ok(!JSON.stringify(props).toLowerCase().includes("secret"));
  } finally {
    await ctx.close();
    await host.close();
  }
});

Deno.test("without DID_TEST_IDENTIFIERS no network method is listed; public when resolution is", async () => {
  const ctx = await createTestContext({ env: { DID_RESOLUTION_PUBLIC: "true" } });
  try {
    const res = await ctx.call("GET", "/1.0/testIdentifiers");
    assert.equal(res.status, 200);
    const examples = await res.json();
    assert.deepEqual(Object.keys(examples), ["key", "jwk", "peer", "pkh"]);
    const props = await (await ctx.call("GET", "/1.0/properties")).json();
    assert.equal(props.resolutionPublic, true);
    const traits = await ctx.call("GET", "/1.0/traits");
    assert.equal(traits.status, 200);
    assert.deepEqual(Object.keys(await traits.json()), props.methods);
  } finally {
    await ctx.close();
  }
});

Deno.test("DID_TEST_IDENTIFIERS must list DIDs", async () => {
  await assert.rejects(
    () => createTestContext({ env: { DID_TEST_IDENTIFIERS: "did:key:z6Mk, https://x" } }),
    /DID_TEST_IDENTIFIERS/,
  );
});
