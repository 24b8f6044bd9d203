/**
 * The plug-in adapter (`src/did/plugins/driver.ts`, CONTRACT "DID method plug-ins") with drivers
 * written here to misbehave: the service answers through the app, so statuses, bodies and the
 * cache are the ones clients see. The real drivers (did:ethr, did:polygon, did:pkh) are tested
 * against a real chain in chain_test.ts and pkh_test.ts.
 */
import assert from "node:assert/strict";
import {
  type DriverMap,
  driverMethods,
  type DriverPlugin,
  type LoadedDriver,
  transportReporter,
} from "../../src/did/plugins/driver.ts";
import { createTestContext, expectJson, type TestContext } from "../support/context.ts";
import { waitFor } from "../support/wait.ts";

const ID = "0x70997970c51812dc3a010c7d01b50e0d17dc79c8";
const doc = (did: string) => ({
  "@context": ["https://www.w3.org/ns/did/v1", { odd: "https://odd.example/#odd" }],
  id: did,
  odd: { nested: [1, "two", null, true] },
  verificationMethod: [{
    id: `${did}#k`,
    type: "EcdsaSecp256k1RecoveryMethod2020",
    controller: did,
    blockchainAccountId: `eip155:1:${ID}`,
  }],
});
const good = (did: string) => ({
  didDocument: doc(did),
  didDocumentMetadata: { versionId: "7", custom: { a: 1 } },
  didResolutionMetadata: { contentType: "application/did+ld+json" },
});

async function withPlugins(
  plugins: DriverPlugin[],
  fn: (ctx: TestContext, token: string) => Promise<void>,
  timeoutMs = 300,
) {
  const ctx = await createTestContext({
    build: { didResolver: { methods: driverMethods(plugins, { timeoutMs }) } },
  });
  try {
    await fn(ctx, await ctx.token());
  } finally {
    await ctx.close();
  }
}

async function resolve(ctx: TestContext, token: string, did: string, status: number) {
  const body = await expectJson(await ctx.call("GET", `/dids/${did}`, { token }), status);
  return body as {
    didDocument: Record<string, unknown> | null;
    didDocumentMetadata: Record<string, unknown>;
    didResolutionMetadata: { error?: string; message?: string; servedFromCache?: boolean };
  };
}

/** Drivers that throw, reject, hang or answer something that is not a resolution result. */
const HOSTILE: Record<string, (did: string) => unknown> = {
  throws: () => {
    throw new Error("boom");
  },
  rejects: () => Promise.reject(new TypeError("kaput")),
  hangs: () => new Promise(() => {}),
  oddthrow: () => {
    const cyclic: Record<string, unknown> = {};
    cyclic.self = cyclic;
    return Promise.reject(cyclic);
  },
  null: () => Promise.resolve(null),
  string: () => Promise.resolve("did document"),
  nometa: () => Promise.resolve({ didDocument: null }),
  nothing: () => Promise.resolve({ didResolutionMetadata: {}, didDocument: null }),
  otherdid: () => Promise.resolve(good("did:other:123")),
  bigint: (did) => Promise.resolve({ ...good(did), didDocumentMetadata: { n: 1n } }),
  cycle: (did) => {
    const d: Record<string, unknown> = doc(did);
    d.self = d;
    return Promise.resolve({ ...good(did), didDocument: d });
  },
};

Deno.test("a plug-in driver that throws, rejects, hangs or answers garbage gives 500 internalError naming the method, never cached", async () => {
  const calls: Record<string, number> = {};
  const map: DriverMap = {};
  for (const [name, behave] of Object.entries(HOSTILE)) {
    map[name] = (did: string) => {
      calls[name] = (calls[name] ?? 0) + 1;
      return behave(did) as Promise<unknown>;
    };
  }
  await withPlugins(
    [{ methods: Object.keys(HOSTILE), kind: "network", driver: map }],
    async (ctx, token) => {
      for (const name of Object.keys(HOSTILE)) {
        const did = `did:${name}:${ID}`;
        for (const round of [1, 2]) {
          const r = await resolve(ctx, token, did, 500);
          assert.equal(r.didResolutionMetadata.error, "internalError", name);
          assert.match(r.didResolutionMetadata.message ?? "", new RegExp(`did:${name}\\b`), name);
          assert.equal(r.didDocument, null, name);
          assert.equal(r.didResolutionMetadata.servedFromCache, false, name);
          assert.equal(calls[name], round, `${name}: the failure was not cached`);
        }
      }
      // The service still answers everything else.
      const key = "did:key:z6MkhaXgBZDvotDkL5257faiztiGiC2QtKLGpbnnEGta2doK";
      assert.equal((await resolve(ctx, token, key, 200)).didDocument?.id, key);
    },
  );
});

Deno.test("driver error spellings map to the DID Core keywords and statuses", async () => {
  const answers: Record<string, string> = {
    notfound: "notFound",
    bang: "NotFound!",
    snake: "not_found",
    network: "unknownNetwork",
    unsupported: "unsupportedDidMethod",
    invalid: "invalidDid",
    format: "unsupportedFormat",
    odd: "somethingElse",
  };
  const map: DriverMap = {};
  for (const [name, error] of Object.entries(answers)) {
    map[name] = () =>
      Promise.resolve({
        didDocument: null,
        didDocumentMetadata: {},
        didResolutionMetadata: { error, message: `driver says ${error}` },
      });
  }
  map.thrown = () => Promise.reject(new Error("invalid did provided"));
  const expected: Record<string, [number, string]> = {
    notfound: [404, "notFound"],
    bang: [404, "notFound"],
    snake: [404, "notFound"],
    network: [501, "methodNotSupported"],
    unsupported: [501, "methodNotSupported"],
    invalid: [400, "invalidDid"],
    format: [406, "representationNotSupported"],
    odd: [500, "internalError"],
    thrown: [400, "invalidDid"],
  };
  await withPlugins(
    [{ methods: Object.keys(map), kind: "network", driver: map }],
    async (ctx, token) => {
      for (const [name, [status, error]] of Object.entries(expected)) {
        const r = await resolve(ctx, token, `did:${name}:${ID}`, status);
        assert.equal(r.didResolutionMetadata.error, error, name);
        assert.equal(r.didDocument, null);
      }
    },
  );
});

Deno.test("a network that the instance does not serve is 501 naming the networks it serves, before the driver is called", async () => {
  let calls = 0;
  const plugin: DriverPlugin = {
    methods: ["chain"],
    kind: "network",
    networks: { served: ["dev", "0x7a69"], of: (p) => p.id.split(":")[0] },
    driver: {
      chain: (did: string) => {
        calls++;
        return Promise.resolve(good(did));
      },
    },
  };
  await withPlugins([plugin], async (ctx, token) => {
    const r = await resolve(ctx, token, `did:chain:mainnet:${ID}`, 501);
    assert.equal(r.didResolutionMetadata.error, "methodNotSupported");
    assert.match(r.didResolutionMetadata.message!, /"mainnet".*dev, 0x7a69/);
    assert.equal(calls, 0);
    await resolve(ctx, token, `did:chain:dev:${ID}`, 200);
    assert.equal(calls, 1);
  });
});

Deno.test("an error answered while the plug-in's transport failed is 500 internalError, not the driver's 404, and not cached", async () => {
  const transport = transportReporter();
  let down = true;
  let calls = 0;
  const plugin: DriverPlugin = {
    methods: ["net"],
    kind: "network",
    transport,
    driver: {
      net: (did: string) => {
        calls++;
        if (!down) return Promise.resolve(good(did));
        // What ethr-did-resolver does when its node is unreachable.
        transport.failed("the node could not be reached");
        return Promise.resolve({
          didDocument: null,
          didDocumentMetadata: {},
          didResolutionMetadata: { error: "notFound", message: "could not detect network" },
        });
      },
    },
  };
  await withPlugins([plugin], async (ctx, token) => {
    const did = `did:net:${ID}`;
    const r = await resolve(ctx, token, did, 500);
    assert.equal(r.didResolutionMetadata.error, "internalError");
    assert.match(r.didResolutionMetadata.message!, /did:net.*could not reach its chain node/);
    down = false;
    const ok = await resolve(ctx, token, did, 200);
    assert.equal(ok.didResolutionMetadata.servedFromCache, false);
    assert.equal(calls, 2, "the outage was not cached");
    const hit = await resolve(ctx, token, did, 200);
    assert.equal(hit.didResolutionMetadata.servedFromCache, true);
    assert.equal(calls, 2);
  });
});

Deno.test("a transport failure belongs to its own call: a concurrent call's notFound stays 404", async () => {
  const transport = transportReporter();
  // The two calls overlap: the outage call reports its failure while the other is still running.
  const otherRunning = Promise.withResolvers<void>();
  const outageReported = Promise.withResolvers<void>();
  const plugin: DriverPlugin = {
    methods: ["net"],
    kind: "network",
    transport,
    driver: {
      net: async (did: string) => {
        const missing = {
          didDocument: null,
          didDocumentMetadata: {},
          didResolutionMetadata: { error: "notFound" },
        };
        if (did.endsWith("1")) {
          await otherRunning.promise;
          transport.failed("the node could not be reached");
          outageReported.resolve();
          return missing;
        }
        otherRunning.resolve();
        await outageReported.promise; // really not there, answered after the other call's outage
        return missing;
      },
    },
  };
  await withPlugins([plugin], async (ctx, token) => {
    const [outage, absent] = await Promise.all([
      resolve(ctx, token, `did:net:${ID.slice(0, -1)}1`, 500),
      resolve(ctx, token, `did:net:${ID.slice(0, -1)}2`, 404),
    ]);
    assert.equal(outage.didResolutionMetadata.error, "internalError");
    assert.match(outage.didResolutionMetadata.message!, /could not reach its chain node/);
    assert.equal(absent.didResolutionMetadata.error, "notFound");
  }, 2000);
});

Deno.test("a plug-in's document and metadata come through unchanged; network answers are cached, deterministic ones memoized", async () => {
  const calls = { net: 0, pure: 0 };
  const plugins: DriverPlugin[] = [
    {
      methods: ["net"],
      kind: "network",
      driver: () => ({
        net: (did: string) => {
          calls.net++;
          return Promise.resolve(good(did));
        },
      }),
    },
    {
      methods: ["pure"],
      kind: "deterministic",
      driver: {
        pure: (did: string) => {
          calls.pure++;
          return Promise.resolve(good(did));
        },
      },
    },
  ];
  await withPlugins(plugins, async (ctx, token) => {
    for (const method of ["net", "pure"] as const) {
      const did = `did:${method}:${ID}`;
      const first = await resolve(ctx, token, did, 200);
      assert.deepEqual(first.didDocument, doc(did));
      assert.deepEqual(first.didDocumentMetadata, good(did).didDocumentMetadata);
      assert.equal(first.didResolutionMetadata.servedFromCache, false);
      const second = await resolve(ctx, token, did, 200);
      assert.deepEqual(second.didDocument, doc(did));
      assert.equal(calls[method], 1, method);
      // Stored network answers are "the cache"; a memoized pure function is not.
      assert.equal(second.didResolutionMetadata.servedFromCache, method === "net");
    }
  });
});

Deno.test("a plug-in whose loader fails is tried again on the next call", async () => {
  let loads = 0;
  const plugin: DriverPlugin = {
    methods: ["late"],
    kind: "deterministic",
    driver: () => {
      loads++;
      if (loads === 1) throw new Error("module not found");
      return { late: (did: string) => Promise.resolve(good(did)) };
    },
  };
  await withPlugins([plugin], async (ctx, token) => {
    const did = `did:late:${ID}`;
    const r = await resolve(ctx, token, did, 500);
    assert.match(
      r.didResolutionMetadata.message!,
      /did:late driver could not be loaded: module not found/,
    );
    await resolve(ctx, token, did, 200);
    assert.equal(loads, 2);
  });
});

Deno.test("versionId and versionTime reach the driver as the DID URL query, and each version is cached under its full DID URL", async () => {
  const seen: { did: string; didUrl: string; query?: string }[] = [];
  const plugin: DriverPlugin = {
    methods: ["v"],
    kind: "network",
    versions: true,
    driver: (): LoadedDriver => ({
      resolver: {
        v: (did: string, parsed: { didUrl: string; query?: string }) => {
          seen.push({ did, didUrl: parsed.didUrl, query: parsed.query });
          const r = good(did);
          return Promise.resolve({
            ...r,
            didDocumentMetadata: { versionId: parsed.query ?? "latest" },
          });
        },
      },
      // The block of a time, as a chain plug-in finds it: here the time's year.
      versionIdAt: (_parsed, time) =>
        Promise.resolve({ ok: true, value: `${time.getUTCFullYear()}` }),
    }),
  };
  const unversioned: DriverPlugin = {
    methods: ["plain"],
    kind: "network",
    driver: { plain: (did: string) => Promise.resolve(good(did)) },
  };
  await withPlugins([plugin, unversioned], async (ctx, token) => {
    const did = `did:v:${ID}`;
    const v3 = await resolve(ctx, token, `${did}?versionId=3`, 200);
    assert.deepEqual(seen, [{ did, didUrl: `${did}?versionId=3`, query: "versionId=3" }]);
    assert.deepEqual(v3.didDocumentMetadata, { versionId: "versionId=3" });
    assert.equal(v3.didResolutionMetadata.servedFromCache, false);
    const again = await resolve(ctx, token, `${did}?versionId=3`, 200);
    assert.equal(again.didResolutionMetadata.servedFromCache, true);
    assert.equal(seen.length, 1);
    // Another version, the DID itself and a time are each their own entry.
    await resolve(ctx, token, `${did}?versionId=4`, 200);
    const latest = await resolve(ctx, token, did, 200);
    assert.deepEqual(latest.didDocumentMetadata, { versionId: "latest" });
    const byTime = await resolve(ctx, token, `${did}?versionTime=2024-05-01T00:00:00Z`, 200);
    assert.deepEqual(byTime.didDocumentMetadata, { versionId: "versionId=2024" });
    assert.equal(seen.length, 4);
    const cached = await resolve(ctx, token, `${did}?versionTime=2024-05-01T00:00:00Z`, 200);
    assert.equal(cached.didResolutionMetadata.servedFromCache, true);
    assert.equal(seen.length, 4);
    const bad = await resolve(ctx, token, `${did}?versionTime=May`, 400);
    assert.equal(bad.didResolutionMetadata.error, "invalidDidUrl");
    // A driver that does not read versions is not asked: no such version.
    const none = await resolve(ctx, token, `did:plain:${ID}?versionId=1`, 404);
    assert.equal(none.didResolutionMetadata.error, "notFound");
  });
});

Deno.test("a network plug-in's answer has the TTL and stale-while-revalidate of network methods; a refresh during an outage keeps it; concurrent misses share one call", async () => {
  let t = Date.parse("2026-01-01T00:00:00Z");
  let calls = 0;
  let mode: "up" | "down" = "up";
  let release: () => void = () => {};
  let gate: Promise<void> | undefined;
  const transport = transportReporter();
  const plugin: DriverPlugin = {
    methods: ["net"],
    kind: "network",
    transport,
    driver: {
      net: async (did: string) => {
        calls++;
        if (gate !== undefined) await gate;
        if (mode === "down") {
          transport.failed("the node could not be reached");
          return {
            didDocument: null,
            didDocumentMetadata: {},
            didResolutionMetadata: { error: "notFound" },
          };
        }
        return { ...good(did), didDocumentMetadata: { versionId: String(calls) } };
      },
    },
  };
  const ctx = await createTestContext({
    now: () => t,
    env: { DID_CACHE_TTL_SECONDS: "60", DID_CACHE_MAX_STALE_SECONDS: "3600" },
    build: { didResolver: { methods: driverMethods([plugin], { timeoutMs: 1000 }) } },
  });
  try {
    const token = await ctx.token();
    const did = `did:net:${ID}`;
    assert.deepEqual((await resolve(ctx, token, did, 200)).didDocumentMetadata, { versionId: "1" });
    // Past the TTL: served at once from the cache, refreshed in the background.
    t += 61_000;
    const stale = await resolve(ctx, token, did, 200);
    assert.equal(stale.didResolutionMetadata.servedFromCache, true);
    assert.deepEqual(stale.didDocumentMetadata, { versionId: "1" });
    await waitFor("the background refresh", async () =>
      calls === 2 &&
      (await resolve(ctx, token, did, 200)).didDocumentMetadata.versionId === "2");
    // The node down during a refresh: the cached answer is kept, never replaced by an error.
    mode = "down";
    t += 61_000;
    assert.deepEqual((await resolve(ctx, token, did, 200)).didDocumentMetadata, { versionId: "2" });
    await waitFor("the failed refresh", () => calls === 3);
    const kept = await resolve(ctx, token, did, 200);
    assert.deepEqual(kept.didDocumentMetadata, { versionId: "2" });
    assert.equal(kept.didResolutionMetadata.servedFromCache, true);

    // Concurrent misses for one DID: one driver call.
    mode = "up";
    gate = new Promise((r) => release = r);
    const other = `did:net:0x${"ef".repeat(20)}`;
    const before = calls;
    const all = Array.from({ length: 5 }, () => resolve(ctx, token, other, 200));
    await waitFor("the driver call", () => calls === before + 1);
    release();
    const answers = await Promise.all(all);
    assert.equal(calls, before + 1);
    for (const a of answers) assert.equal(a.didDocument?.id, other);
  } finally {
    await ctx.close();
  }
});

Deno.test("a driver may resolve other DIDs through the resolver it is given: the plug-ins, three levels deep at most", async () => {
  let loops = 0;
  const map: DriverMap = {
    pure: (did: string) => Promise.resolve(good(did)),
    relay: async (
      did: string,
      _parsed: unknown,
      resolver: { resolve(u: string): Promise<unknown> },
    ) => {
      const other = await resolver.resolve(`did:pure:${ID}`) as { didDocument: { id: string } };
      return { ...good(did), didDocumentMetadata: { relayed: other.didDocument.id } };
    },
    loop: (did: string, _parsed: unknown, resolver: { resolve(u: string): Promise<unknown> }) => {
      loops++;
      return resolver.resolve(did);
    },
  };
  await withPlugins(
    [{ methods: Object.keys(map), kind: "network", driver: map }],
    async (ctx, token) => {
      const relayed = await resolve(ctx, token, `did:relay:${ID}`, 200);
      assert.deepEqual(relayed.didDocumentMetadata, { relayed: `did:pure:${ID}` });
      const loop = await resolve(ctx, token, `did:loop:${ID}`, 501);
      assert.match(loop.didResolutionMetadata.message!, /deeper than 3 levels/);
      assert.equal(loops, 4);
    },
  );
});
