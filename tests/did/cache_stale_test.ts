/** Stale-while-revalidate of network-resolved DIDs (`DID_CACHE_MAX_STALE_SECONDS`). */
import assert from "node:assert/strict";
import { type DidCacheEntry } from "../../src/did/cache/cache.ts";
import { createDidResolver } from "../../src/did/mod.ts";
import { keys } from "../../src/kv/mod.ts";
import { waitFor } from "../support/wait.ts";
import { webCacheSetup } from "./did_host.ts";

const ROOT = "/.well-known/did.json";

/**
 * A context with a movable clock, TTL 60 s and max stale 600 s, and a local did:web host serving
 * version `v` of its document (or `status`), optionally held back by a gate.
 */
function setup(env: Record<string, string> = {}) {
  return webCacheSetup({ DID_CACHE_TTL_SECONDS: "60", DID_CACHE_MAX_STALE_SECONDS: "600", ...env });
}

Deno.test("a stale did:web answer is served at once and refreshed in the background exactly once", async () => {
  const s = await setup();
  try {
    assert.equal((await s.get()).r.didResolutionMetadata.servedFromCache, false);
    s.state.version = 2;
    let release!: () => void;
    s.state.gate = new Promise<void>((r) => (release = r));
    s.clock.advance(61_000);
    const stale = await Promise.all(Array.from({ length: 10 }, () => s.get()));
    for (const { res, r } of stale) {
      assert.equal(res.status, 200);
      assert.equal(r.didResolutionMetadata.servedFromCache, true);
      assert.equal(r.didDocument?.version, 1);
      assert.equal(res.headers.get("cache-control"), "private, max-age=0");
    }
    await waitFor("the background refresh", () => s.host.count(ROOT) === 2);
    const more = await s.get(); // the refresh is still running: no second one
    assert.equal(more.r.didDocument?.version, 1);
    release();
    const fresh = await waitFor("the refreshed answer", async () => {
      const g = await s.get();
      return g.r.didDocument?.version === 2 ? g : undefined;
    });
    assert.equal(fresh.r.didResolutionMetadata.servedFromCache, true);
    assert.equal(fresh.res.headers.get("cache-control"), "private, max-age=60");
    assert.equal(s.host.count(ROOT), 2, "one upstream fetch for the refresh");
    const entry = await waitFor("the refreshed KV entry", async () => {
      const e = await s.ctx.kv.get<DidCacheEntry>(keys.didCache(s.host.did));
      return e.value?.result.didDocument?.version === 2 ? e.value : undefined;
    });
    assert.equal(entry.expiresAt, s.clock.now() + 60_000);
  } finally {
    await s.close();
  }
});

Deno.test("a failed background refresh keeps the stale entry; a later successful one replaces it", async () => {
  const s = await setup();
  try {
    await s.get();
    s.state.status = 503;
    s.clock.advance(61_000);
    const stale = await s.get();
    assert.equal(stale.r.didResolutionMetadata.servedFromCache, true);
    assert.equal(stale.r.didDocument?.version, 1);
    await waitFor("the failed refresh", () => s.host.count(ROOT) === 2);
    // The next try waits 30 s; when it comes, the first refresh has finished and kept the entry.
    s.clock.advance(31_000);
    const again = await waitFor("a second refresh", async () => {
      const g = await s.get();
      return s.host.count(ROOT) === 3 ? g : undefined;
    });
    assert.equal(again.res.status, 200);
    assert.equal(again.r.didResolutionMetadata.servedFromCache, true);
    assert.equal(again.r.didDocument?.version, 1);
    const entry = await s.ctx.kv.get<DidCacheEntry>(keys.didCache(s.host.did));
    assert.equal(entry.value?.cachedAt, 1_700_000_000_000, "the old entry is kept in KV");
    // When the host answers again, the next refresh replaces the entry.
    s.state.status = 200;
    s.state.version = 2;
    s.clock.advance(31_000);
    await waitFor("a successful refresh", async () => (await s.get()).r.didDocument?.version === 2);
    await waitFor("the refreshed KV entry", async () => {
      const e = await s.ctx.kv.get<DidCacheEntry>(keys.didCache(s.host.did));
      return e.value?.result.didDocument?.version === 2;
    });
  } finally {
    await s.close();
  }
});

Deno.test("past DID_CACHE_MAX_STALE_SECONDS a failing host's DID is not served stale", async () => {
  const s = await setup({ DID_CACHE_MAX_STALE_SECONDS: "100" });
  try {
    await s.get();
    s.state.status = 503;
    s.clock.advance(60_000 + 100_000);
    const gone = await s.get();
    assert.equal(gone.res.status, 500);
    assert.equal(gone.r.didResolutionMetadata.servedFromCache, false);
    assert.equal(s.host.count(ROOT), 2);
  } finally {
    await s.close();
  }
});

Deno.test("past DID_CACHE_MAX_STALE_SECONDS a DID is fetched again, from memory or from KV", async () => {
  const s = await setup({ DID_CACHE_MAX_STALE_SECONDS: "100" });
  try {
    await s.get();
    s.state.version = 2;
    s.clock.advance(60_000 + 100_000);
    const fresh = await s.get();
    assert.equal(fresh.r.didResolutionMetadata.servedFromCache, false);
    assert.equal(fresh.r.didDocument?.version, 2);
    assert.equal(s.host.count(ROOT), 2);

    // Another instance (empty memory, same KV): stale from KV within the age, fetched past it.
    s.state.version = 3;
    s.clock.advance(61_000);
    const other = createDidResolver(s.ctx.services);
    const fromKv = await other.resolve(s.host.did);
    assert.equal(fromKv.didResolutionMetadata.servedFromCache, true);
    assert.equal(fromKv.didDocument?.version, 2);
    await waitFor("the refresh of the KV entry", async () => {
      const e = await s.ctx.kv.get<DidCacheEntry>(keys.didCache(s.host.did));
      return e.value?.result.didDocument?.version === 3;
    });
    s.clock.advance(60_000 + 101_000);
    const third = createDidResolver(s.ctx.services);
    s.state.version = 4;
    const past = await third.resolve(s.host.did);
    assert.equal(past.didResolutionMetadata.servedFromCache, false);
    assert.equal(past.didDocument?.version, 4);
  } finally {
    await s.close();
  }
});

Deno.test("?noCache=true bypasses a stale entry without a background refresh", async () => {
  const s = await setup();
  try {
    await s.get();
    s.state.version = 2;
    s.clock.advance(61_000);
    const q = await s.get({}, "?noCache=true");
    assert.equal(q.r.didResolutionMetadata.servedFromCache, false);
    assert.equal(q.r.didDocument?.version, 2);
    assert.equal(s.host.count(ROOT), 2);
    const after = await s.get();
    assert.equal(after.r.didResolutionMetadata.servedFromCache, true);
    assert.equal(after.r.didDocument?.version, 2);
    assert.equal(after.res.headers.get("cache-control"), "private, max-age=60");
    assert.equal(s.host.count(ROOT), 2);
  } finally {
    await s.close();
  }
});

Deno.test("notFound answers are not served stale", async () => {
  const s = await setup();
  try {
    s.state.status = 404;
    assert.equal((await s.get()).res.status, 404);
    s.state.status = 200;
    s.clock.advance(30_000);
    const ok = await s.get();
    assert.equal(ok.res.status, 200);
    assert.equal(ok.r.didResolutionMetadata.servedFromCache, false);
    assert.equal(s.host.count(ROOT), 2);
  } finally {
    await s.close();
  }
});
