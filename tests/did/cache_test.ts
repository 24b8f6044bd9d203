import assert from "node:assert/strict";
import { parseConfig } from "../../src/config/config.ts";
import type { DidCacheEntry } from "../../src/did/cache/cache.ts";
import { Lru } from "../../src/base/lru.ts";
import { createDidResolver } from "../../src/did/mod.ts";
import { keys } from "../../src/kv/mod.ts";
import { createSafeFetch } from "../../src/outbound/mod.ts";
import { createTestContext, type TestContext } from "../support/context.ts";
import { waitFor } from "../support/wait.ts";
import { didHost, json, webCacheSetup, webDoc } from "./did_host.ts";

const ROOT = "/.well-known/did.json";

/** A context with a movable clock and a local did:web host serving version `v` of its document. */
function setup(env: Record<string, string> = {}) {
  return webCacheSetup(env);
}

Deno.test("did:web via HTTP: servedFromCache false, then true from the cache, one upstream fetch", async () => {
  const s = await setup();
  try {
    const first = await s.get();
    assert.equal(first.res.status, 200);
    assert.equal(first.r.didResolutionMetadata.servedFromCache, false);
    assert.equal(first.res.headers.get("cache-control"), "private, max-age=300");
    s.clock.advance(100_000);
    const second = await s.get();
    assert.equal(second.r.didResolutionMetadata.servedFromCache, true);
    assert.deepEqual(second.r.didDocument, first.r.didDocument);
    assert.equal(second.res.headers.get("cache-control"), "private, max-age=200");
    s.clock.advance(50_500);
    const third = await s.get();
    assert.equal(third.res.headers.get("cache-control"), "private, max-age=149", "counts down");
    assert.equal(s.host.count(ROOT), 1);

    const entry = await s.ctx.kv.get<DidCacheEntry>(keys.didCache(s.host.did));
    assert.ok(entry.value);
    assert.equal(entry.value.cachedAt, 1_700_000_000_000);
    assert.equal(entry.value.expiresAt, 1_700_000_000_000 + 300_000);
    assert.equal(entry.value.result.didResolutionMetadata.servedFromCache, undefined);
  } finally {
    await s.close();
  }
});

Deno.test("?noCache=true and Cache-Control: no-cache bypass the cache and refresh it", async () => {
  const s = await setup();
  try {
    await s.get();
    s.state.version = 2;
    const cached = await s.get();
    assert.equal(cached.r.didResolutionMetadata.servedFromCache, true);
    assert.equal(cached.r.didDocument?.version, 1);

    const q = await s.get({}, "?noCache=true");
    assert.equal(q.r.didResolutionMetadata.servedFromCache, false);
    assert.equal(q.r.didDocument?.version, 2);
    assert.equal(s.host.count(ROOT), 2);
    const refreshed = await s.get();
    assert.equal(refreshed.r.didResolutionMetadata.servedFromCache, true);
    assert.equal(refreshed.r.didDocument?.version, 2, "the bypass refreshed the cache");

    s.state.version = 3;
    const h = await s.get({ "cache-control": "no-cache" });
    assert.equal(h.r.didResolutionMetadata.servedFromCache, false);
    assert.equal(h.r.didDocument?.version, 3);
    assert.equal(s.host.count(ROOT), 3);
    const after = await s.get();
    assert.equal(after.r.didDocument?.version, 3);
    assert.equal(after.r.didResolutionMetadata.servedFromCache, true);
    // noCache=false is not a bypass.
    const f = await s.get({}, "?noCache=false");
    assert.equal(f.r.didResolutionMetadata.servedFromCache, true);
    assert.equal(s.host.count(ROOT), 3);
  } finally {
    await s.close();
  }
});

Deno.test("cached did:web results expire after DID_CACHE_TTL_SECONDS (injected clock)", async () => {
  const s = await setup({ DID_CACHE_TTL_SECONDS: "60", DID_CACHE_MAX_STALE_SECONDS: "0" });
  try {
    await s.get();
    s.clock.advance(59_000);
    assert.equal((await s.get()).r.didResolutionMetadata.servedFromCache, true);
    s.state.version = 2;
    s.clock.advance(1_000);
    const expired = await s.get();
    assert.equal(expired.r.didResolutionMetadata.servedFromCache, false);
    assert.equal(expired.r.didDocument?.version, 2);
    assert.equal(s.host.count(ROOT), 2);
  } finally {
    await s.close();
  }
});

Deno.test("an expired KV entry is not served even when the in-memory LRU is empty", async () => {
  const s = await setup({ DID_CACHE_TTL_SECONDS: "60", DID_CACHE_MAX_STALE_SECONDS: "0" });
  try {
    const resolver = createDidResolver(s.ctx.services);
    assert.equal((await resolver.resolve(s.host.did)).didResolutionMetadata.servedFromCache, false);
    const other = createDidResolver(s.ctx.services); // fresh memory, same KV: another instance
    assert.equal((await other.resolve(s.host.did)).didResolutionMetadata.servedFromCache, true);
    s.clock.advance(61_000);
    const third = createDidResolver(s.ctx.services);
    assert.equal((await third.resolve(s.host.did)).didResolutionMetadata.servedFromCache, false);
    assert.equal(s.host.count(ROOT), 2);
  } finally {
    await s.close();
  }
});

Deno.test("notFound is cached for at most 30 s; failures are never cached", async () => {
  const s = await setup();
  try {
    s.state.status = 404;
    const nf = await s.get();
    assert.equal(nf.res.status, 404);
    assert.equal(nf.res.headers.get("cache-control"), "private, max-age=30");
    const nf2 = await s.get();
    assert.equal(nf2.res.status, 404);
    assert.equal(nf2.r.didResolutionMetadata.servedFromCache, true);
    assert.equal(s.host.count(ROOT), 1);
    s.state.status = 200;
    s.clock.advance(30_000);
    const ok = await s.get();
    assert.equal(ok.res.status, 200);
    assert.equal(ok.r.didResolutionMetadata.servedFromCache, false);
    assert.equal(s.host.count(ROOT), 2);

    const failing = await setup();
    try {
      failing.state.status = 503;
      for (let i = 0; i < 3; i++) {
        const f = await failing.get();
        assert.equal(f.res.status, 500);
        assert.equal(f.r.didResolutionMetadata.servedFromCache, false);
        assert.equal(f.res.headers.get("cache-control"), "no-store");
      }
      assert.equal(failing.host.count(ROOT), 3);
      assert.equal((await failing.ctx.kv.get(keys.didCache(failing.host.did))).value, null);
    } finally {
      await failing.close();
    }
  } finally {
    await s.close();
  }
});

Deno.test("20 concurrent misses for one DID make exactly 1 upstream request", async () => {
  const s = await setup();
  let release!: () => void;
  const gate = new Promise<void>((r) => (release = r));
  s.host.routes[ROOT] = async (_r, did) => {
    await gate;
    return json(webDoc(did));
  };
  try {
    await s.ctx.services.verifier.verify(s.token); // a cached token: the route awaits no I/O
    const all = Promise.all(Array.from({ length: 20 }, () => s.get()));
    // Every request joins the lookup within microtasks; the host sees the first fetch after.
    await waitFor("the upstream fetch", () => s.host.count(ROOT) >= 1);
    release();
    const results = await all;
    for (const { res, r } of results) {
      assert.equal(res.status, 200);
      assert.equal(r.didResolutionMetadata.servedFromCache, false);
    }
    assert.equal(s.host.count(ROOT), 1);
    // Bypassing requests are coalesced too.
    const bypass = await Promise.all(
      Array.from({ length: 5 }, () => s.get({ "cache-control": "no-cache" })),
    );
    assert.ok(bypass.every((b) => b.res.status === 200));
    assert.equal(s.host.count(ROOT), 2);
  } finally {
    await s.close();
  }
});

Deno.test("a KV cache read failure counts as a miss (closed KV: still resolves upstream)", async () => {
  const host = didHost({ [ROOT]: (_r, did) => json(webDoc(did)) });
  const kv = await Deno.openKv(":memory:");
  kv.close();
  try {
    const config = parseConfig({
      DEV_MODE: "true",
      OUTBOUND_ALLOW_PRIVATE: "true",
      OUTBOUND_REQUIRE_HTTPS: "false",
    });
    const resolver = createDidResolver({
      config,
      kv,
      safeFetch: createSafeFetch(config.outbound),
      now: Date.now,
    });
    const r = await resolver.resolve(host.did);
    assert.equal(r.didResolutionMetadata.error, undefined, r.didResolutionMetadata.message);
    assert.equal(r.didResolutionMetadata.servedFromCache, false);
    assert.equal(host.count(ROOT), 1);
  } finally {
    await host.close();
  }
});

Deno.test("DID_CACHE_TTL_SECONDS=0 stores nothing and always fetches", async () => {
  const s = await setup({ DID_CACHE_TTL_SECONDS: "0" });
  try {
    for (let i = 0; i < 2; i++) {
      const g = await s.get();
      assert.equal(g.r.didResolutionMetadata.servedFromCache, false);
      assert.equal(g.res.headers.get("cache-control"), "no-store");
    }
    assert.equal(s.host.count(ROOT), 2);
  } finally {
    await s.close();
  }
});

Deno.test("cached results are frozen: a caller cannot change what others are served", async () => {
  const ctx: TestContext = await createTestContext();
  try {
    const resolver = createDidResolver(ctx.services);
    const did = "did:key:z6MkhaXgBZDvotDkL5257faiztiGiC2QtKLGpbnnEGta2doK";
    const r = await resolver.resolve(did);
    assert.throws(() => {
      (r.didDocument as Record<string, unknown>).id = "did:key:other";
    }, TypeError);
    assert.equal((await resolver.resolve(did)).didDocument?.id, did);
  } finally {
    await ctx.close();
  }
});

Deno.test("the memo and the LRU are bounded", async () => {
  const ctx = await createTestContext();
  const host = didHost({
    "/a/did.json": (_r, did) => json(webDoc(`${did}:a`)),
    "/b/did.json": (_r, did) => json(webDoc(`${did}:b`)),
  });
  try {
    const resolver = createDidResolver(ctx.services, { lruSize: 1 });
    await resolver.resolve(`${host.did}:a`);
    await resolver.resolve(`${host.did}:b`); // evicts :a from memory; KV still has it
    const a = await resolver.resolve(`${host.did}:a`);
    assert.equal(a.didResolutionMetadata.servedFromCache, true);
    assert.equal(host.count("/a/did.json"), 1);
  } finally {
    await host.close();
    await ctx.close();
  }
});

Deno.test("Lru: evicts the least recently used; a key read often enough is never evicted", () => {
  const lru = new Lru<number>(8);
  for (const [i, k] of [..."abcdefgh"].entries()) lru.set(k, i);
  assert.equal(lru.get("a"), 0); // old enough to be refreshed
  lru.set("i", 8); // evicts b, the least recently used
  assert.equal(lru.get("b"), undefined);
  assert.equal(lru.get("a"), 0);
  assert.equal(lru.size, 8);

  const big = new Lru<number>(100);
  big.set("hot", -1);
  for (let i = 0; i < 10_000; i++) {
    big.set(`k${i}`, i);
    assert.equal(big.get("hot"), -1, `after ${i} insertions`);
    assert.ok(big.size <= 100);
  }
  assert.equal(big.get("k9999"), 9999);
  assert.equal(big.get("k9899"), undefined);
});

Deno.test("Lru: a weight bound evicts the least recently used until the total fits", () => {
  const lru = new Lru<string>(100, { maxWeight: 10, weigh: (v) => v.length });
  lru.set("a", "xxxx");
  lru.set("b", "xxxx");
  assert.equal(lru.weight, 8);
  lru.set("c", "xxxx"); // 12 > 10: evicts a
  assert.equal(lru.get("a"), undefined);
  assert.equal(lru.weight, 8);
  lru.set("b", "x"); // replacing counts the new weight only
  assert.equal(lru.weight, 5);
  lru.set("big", "x".repeat(50)); // larger than the bound: kept alone
  assert.equal(lru.size, 1);
  assert.equal(lru.get("big")?.length, 50);
  lru.delete("big");
  assert.equal(lru.weight, 0);
});
