/**
 * did:ethr and did:polygon against a real local Ethereum node (CONTRACT "DID method plug-ins"):
 * the test starts anvil on a loopback port, deploys both registries and writes DIDs (unchanged,
 * with a service and an extra key, with a delegate, with a new owner, deactivated, changed twice),
 * then compares every answer of the service, through `/dids` and `/1.0/identifiers`, with the
 * drivers' own answers for the same DID URLs (the same packages in Node.js, `chain.mjs resolve`).
 * Then the node is frozen (SIGSTOP: calls hang) and killed: answers are `internalError` within the
 * driver timeout, never a cached 404, and cached DIDs are still served.
 */
import assert from "node:assert/strict";
import {
  type Anvil,
  chain,
  chainInterop,
  type ChainSetup,
  driverAnswers,
  type DriverResult,
  startAnvil,
} from "../interop/chain_peer.ts";
import type { DidTraits } from "../../src/did/types.ts";
import {
  createTestContext,
  expectJson,
  randomSecretsKey,
  type TestContext,
} from "../support/context.ts";

/**
 * The driver timeout of the answers compared with the drivers': generous, as a `versionTime` is a
 * binary search over the chain's blocks (a dozen RPC calls in one driver call) on a busy machine.
 */
const TIMEOUT_MS = 60_000;
/** The timeout of the frozen node's part: how long each call to a node that never answers waits. */
const FROZEN_TIMEOUT_MS = 2_000;

type Body = DriverResult & { didResolutionMetadata: { servedFromCache?: boolean } };

interface World {
  anvil: Anvil;
  setup: ChainSetup;
  ctx: TestContext;
  token: string;
  /** The drivers' configuration, as chain.mjs takes it. */
  drivers: { ethr: unknown[]; polygon: Record<string, unknown> };
  /** Another service on the same KV file (and cache) whose driver timeout is `timeoutMs`. */
  withTimeout(timeoutMs: number): Promise<TestContext>;
}

async function world(fn: (w: World) => Promise<void>) {
  const anvil = await startAnvil();
  const dir = await Deno.makeTempDir();
  let ctx: TestContext | undefined;
  try {
    const setup = await chain<ChainSetup>("setup", anvil.rpcUrl);
    const ethr = [{
      name: "dev",
      chainId: setup.chainId,
      rpcUrl: anvil.rpcUrl,
      registry: setup.ethrRegistry,
    }];
    const polygon = { testnet: { rpcUrl: anvil.rpcUrl, registry: setup.polygonRegistry } };
    const env = {
      DID_ETHR_NETWORKS: JSON.stringify(ethr),
      DID_POLYGON_NETWORKS: JSON.stringify(polygon),
      SECRETS_KEY: randomSecretsKey(),
    };
    const withTimeout = (ms: number) =>
      createTestContext({
        kvPath: `${dir}/kv.sqlite3`,
        env: { ...env, DID_DRIVER_TIMEOUT_MS: String(ms) },
      });
    ctx = await withTimeout(TIMEOUT_MS);
    await fn({
      anvil,
      setup,
      ctx,
      token: await ctx.token(),
      drivers: { ethr, polygon },
      withTimeout,
    });
  } finally {
    await ctx?.close();
    await anvil.stop();
    await Deno.remove(dir, { recursive: true });
  }
}

async function get(w: World, path: string, status: number, accept?: string): Promise<Body> {
  const headers: Record<string, string> = accept ? { accept } : {};
  const res = await w.ctx.call("GET", path, { token: w.token, headers });
  return await expectJson(res, status) as unknown as Body;
}

/** The service's answer equals the driver's: document, document metadata, content type. */
function sameAnswer(ours: Body, theirs: DriverResult, what: string) {
  assert.deepEqual(ours.didDocument, theirs.didDocument, what);
  assert.deepEqual(ours.didDocumentMetadata, theirs.didDocumentMetadata, what);
  assert.equal(ours.didResolutionMetadata.contentType, theirs.didResolutionMetadata.contentType);
  assert.equal(ours.didResolutionMetadata.error, undefined, what);
}

Deno.test({
  name:
    "did:ethr and did:polygon on a real anvil node: every answer equals the driver's own, cached on the second request; 404/400/501/410; a frozen or killed node is internalError, never a cached 404, and cached DIDs are still served",
  ...chainInterop,
  // ethers 5 inside the polygon driver keeps its own sockets and timers (a call to the frozen
  // node waits for its own 120 s timeout); they end when the node is killed at the end.
  sanitizeOps: false,
  sanitizeResources: false,
  fn: () =>
    world(async (w) => {
      const { ethr, polygon, versions } = w.setup;
      const v1 = `${ethr.twice}?versionId=${versions.first.block}`;
      const resolved = [
        ...Object.values(ethr).filter((d) => d !== ethr.touchable),
        polygon.registered,
        polygon.deactivated,
      ];
      const theirs = await driverAnswers(
        w.drivers,
        [
          ...[...resolved, v1].map((didUrl) => ({ didUrl })),
          ...resolved.map((didUrl) => ({ didUrl, accept: "application/did+json" })),
        ],
      );

      // Every DID: /dids first (a miss), /1.0/identifiers second (from the cache).
      for (const did of resolved) {
        const driver = theirs.get(`${did} `)!;
        const deactivated = driver.didDocumentMetadata.deactivated === true;
        const status = deactivated ? 410 : 200;
        const first = await get(w, `/dids/${did}`, status);
        sameAnswer(first, driver, did);
        assert.equal(first.didResolutionMetadata.servedFromCache, false, did);
        const second = await get(w, `/1.0/identifiers/${did}`, status);
        sameAnswer(second, driver, did);
        assert.equal(second.didResolutionMetadata.servedFromCache, true, did);
        const bare = await get(w, `/dids/${did}`, status, "application/did+ld+json");
        if (!deactivated) assert.deepEqual(bare, driver.didDocument, did);
        // application/did+json: the driver's did+json answer.
        const json = await get(w, `/1.0/identifiers/${did}`, status, "application/did+json");
        const theirJson = theirs.get(`${did} application/did+json`)!;
        if (!deactivated) assert.deepEqual(json, theirJson.didDocument, did);
      }
      assert.equal(
        (await get(w, `/dids/${ethr.deactivated}`, 410)).didDocumentMetadata.deactivated,
        true,
      );
      assert.equal(
        (await get(w, `/dids/${polygon.deactivated}`, 410)).didDocumentMetadata.deactivated,
        true,
      );

      // The routes that describe the resolver name the plug-ins, never an RPC URL.
      const methods = await get(w, "/1.0/methods", 200) as unknown as string[];
      assert.deepEqual(methods.slice(-3), ["pkh", "ethr", "polygon"]);
      const props = await (await w.ctx.call("GET", "/1.0/properties", { token: w.token })).text();
      assert.ok(!props.includes(w.anvil.rpcUrl), props);
      const plugins = JSON.parse(props).plugins;
      assert.deepEqual(plugins.ethr.networks, ["dev", "0x7a69"]);
      assert.deepEqual(plugins.polygon.networks, ["testnet"]);
      assert.equal(plugins.pkh.kind, "deterministic");
      const traits = await get(w, "/1.0/traits", 200) as unknown as Record<string, DidTraits>;
      assert.equal(traits.ethr!.historyAvailable, true);
      assert.equal(traits.polygon!.deactivatable, true);

      // Versions: versionId reaches the driver as the DID URL query; versionTime is the last block
      // at or before that time (found by the test by reading every block).
      const v1First = await get(w, `/dids/${v1}`, 200);
      sameAnswer(v1First, theirs.get(`${v1} `)!, v1);
      assert.equal(v1First.didResolutionMetadata.servedFromCache, false);
      // Cached under the full DID URL.
      const v1Again = await get(w, `/1.0/identifiers/${v1}`, 200);
      sameAnswer(v1Again, theirs.get(`${v1} `)!, v1);
      assert.equal(v1Again.didResolutionMetadata.servedFromCache, true);
      for (const t of [versions.first.time + 500, versions.second.time, versions.second.time - 1]) {
        const iso = new Date(t * 1000).toISOString().replace(".000Z", "Z");
        const { block } = await chain<{ block: number }>("blockAt", w.anvil.rpcUrl, String(t));
        const asId = `${ethr.twice}?versionId=${block}`;
        const [driver] = (await driverAnswers(w.drivers, [{ didUrl: asId }])).values();
        sameAnswer(await get(w, `/dids/${ethr.twice}?versionTime=${iso}`, 200), driver!, iso);
      }
      const early = await get(w, `/dids/${ethr.twice}?versionTime=2001-01-01T00:00:00Z`, 404);
      assert.equal(early.didResolutionMetadata.error, "notFound");
      const future = await get(w, `/dids/${ethr.twice}?versionId=99999999`, 404);
      assert.equal(future.didResolutionMetadata.error, "notFound");
      const badTime = await get(w, `/dids/${ethr.twice}?versionTime=yesterday`, 400);
      assert.equal(badTime.didResolutionMetadata.error, "invalidDidUrl");

      // 404, 400, 501 as the contract says.
      const missing = await get(w, `/dids/${polygon.unregistered}`, 404);
      assert.equal(missing.didResolutionMetadata.error, "notFound");
      for (
        const bad of ["did:ethr:dev:0x123", "did:polygon:testnet:0x123", "did:polygon:amoy:0x0"]
      ) {
        assert.equal((await get(w, `/dids/${bad}`, 400)).didResolutionMetadata.error, "invalidDid");
      }
      const address = w.setup.touchableAddress;
      const unserved = await get(w, `/dids/did:ethr:goerli:${address}`, 501);
      assert.equal(unserved.didResolutionMetadata.error, "methodNotSupported");
      assert.match(unserved.didResolutionMetadata.message!, /"goerli".*dev, 0x7a69/);
      const mainnet = await get(w, `/1.0/identifiers/did:polygon:${address}`, 501);
      assert.match(mainnet.didResolutionMetadata.message!, /"mainnet".*testnet/);

      // DID URLs of plug-in DIDs are dereferenced like any other: a fragment, a service.
      const withService = theirs.get(`${ethr.withService} `)!.didDocument!;
      const vm = (withService.verificationMethod as { id: string }[])[1]!;
      const fragment = await w.ctx.call("GET", `/dids/${vm.id.replace("#", "%23")}`, {
        token: w.token,
      });
      assert.deepEqual(await expectJson(fragment, 200), vm);
      const redirect = await w.ctx.call(
        "GET",
        `/1.0/identifiers/${ethr.withService}?service=service-1&relativeRef=/inbox`,
        { token: w.token },
      );
      assert.equal(redirect.status, 303);
      assert.equal(redirect.headers.get("location"), "https://agent.example/inbox");

      // Cached: a change on chain is not seen until the cache is bypassed.
      const before = await get(w, `/dids/${ethr.touchable}`, 200);
      await chain("touch", w.anvil.rpcUrl, w.setup.ethrRegistry, address);
      const cached = await get(w, `/dids/${ethr.touchable}`, 200);
      assert.deepEqual(cached.didDocument, before.didDocument);
      assert.equal(cached.didResolutionMetadata.servedFromCache, true);
      const fresh = await get(w, `/dids/${ethr.touchable}?noCache=true`, 200);
      const [changed] = (await driverAnswers(w.drivers, [{ didUrl: ethr.touchable }])).values();
      sameAnswer(fresh, changed!, "after the change");
      assert.notDeepEqual(fresh.didDocument, before.didDocument);

      // The node frozen: calls hang; the answer is internalError within the timeout (a service
      // on the same KV file, hence the same cache, with a short driver timeout).
      const quick = await w.withTimeout(FROZEN_TIMEOUT_MS);
      const f: World = { ...w, ctx: quick, token: await quick.token() };
      try {
        const uncached = [
          `did:ethr:dev:${"0x" + "ab".repeat(20)}`,
          `did:polygon:testnet:0x${"cd".repeat(20)}`,
        ];
        w.anvil.freeze();
        for (const did of uncached) {
          for (const round of [1, 2]) {
            const r = await get(f, `/dids/${did}`, 500);
            assert.equal(r.didResolutionMetadata.error, "internalError", `${did} ${round}`);
            assert.match(
              r.didResolutionMetadata.message!,
              new RegExp(`gave no answer within ${FROZEN_TIMEOUT_MS} ms`),
            );
          }
        }
        const stillServed = await get(f, `/dids/${ethr.withService}`, 200);
        assert.equal(stillServed.didResolutionMetadata.servedFromCache, true);
        // A refresh that fails keeps the cached answer.
        await get(f, `/dids/${polygon.registered}?noCache=true`, 500);
        sameAnswer(
          await get(f, `/dids/${polygon.registered}`, 200),
          theirs.get(`${polygon.registered} `)!,
          "kept",
        );

        // The node killed: refused connections, which ethr-did-resolver reports as notFound.
        w.anvil.thaw();
        await w.anvil.stop();
        for (const did of uncached) {
          const r = await get(f, `/1.0/identifiers/${did}`, 500);
          assert.equal(r.didResolutionMetadata.error, "internalError", did);
        }
        const ethrDown = await get(f, `/dids/${uncached[0]}`, 500);
        assert.match(
          ethrDown.didResolutionMetadata.message!,
          /did:ethr driver could not reach its chain node/,
        );
        for (const did of resolved) {
          const r = await get(
            w,
            `/dids/${did}`,
            theirs.get(`${did} `)!.didDocumentMetadata.deactivated ? 410 : 200,
          );
          assert.equal(r.didResolutionMetadata.servedFromCache, true, did);
        }
      } finally {
        await quick.close();
      }
    }),
});
