/**
 * did:webvh: resolving a 3-entry log (created, key rotation, service added) from a local host.
 * - warm: a cache hit of the caching resolver;
 * - cold: `noCache`, so each iteration fetches did.jsonl and verifies all three entries
 *   (SCID, hash chain, Ed25519 proofs) with didwebvh-ts;
 * - verify only: `resolveDIDFromLog` on the parsed log, no HTTP;
 * - first resolution in a process (loading didwebvh-ts) is printed once, before the runs.
 * Run: `deno bench --allow-all tests/bench/webvh_bench.ts`
 */
import * as vh from "didwebvh-ts";
import { createTestContext } from "../support/context.ts";
import { buildCases, libraryVerifier, webvhHost } from "../did/webvh_fixtures.ts";

const host = webvhHost();
const suite = await buildCases(host.address, host.address);
const c = suite.cases.find((x) => x.name === "updated twice")!;
host.publish(c.log, c.path, c.witness);
if (c.log.length !== 3) throw new Error(`expected a 3-entry log, got ${c.log.length}`);

const ctx = await createTestContext({
  env: { DID_CACHE_TTL_SECONDS: "86400" },
  build: { resolveHost: (h) => Promise.resolve(h === "localhost" ? ["127.0.0.1"] : []) },
});
const resolver = ctx.services.resolver;
const t0 = performance.now();
const first = await resolver.resolve(c.did, { noCache: true });
const firstMs = performance.now() - t0;
if (first.didDocument === null) throw new Error(JSON.stringify(first.didResolutionMetadata));
console.log(
  `first did:webvh resolution in this process (loads didwebvh-ts): ${firstMs.toFixed(1)} ms`,
);
await resolver.resolve(c.did);

Deno.bench("did:webvh warm (cache hit)", { group: "webvh", baseline: true }, async () => {
  await resolver.resolve(c.did);
});
Deno.bench("did:webvh cold (fetch + verify 3 entries)", { group: "webvh" }, async () => {
  const r = await resolver.resolve(c.did, { noCache: true });
  if (r.didDocument === null) throw new Error("not resolved");
});
Deno.bench("didwebvh-ts resolveDIDFromLog, 3 entries (no HTTP)", { group: "webvh" }, async () => {
  await vh.resolveDIDFromLog(c.log as never, { verifier: libraryVerifier });
});

globalThis.addEventListener("unload", () => {
  host.close();
  void ctx.close();
});
