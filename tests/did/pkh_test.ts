/**
 * did:pkh (always on, deterministic; CONTRACT "DID method plug-ins"): the method specification's
 * eip155, bip122 and tezos examples through `/dids` and `/1.0/identifiers` equal pkh-did-resolver's
 * own answers, computed by the package in Node.js (`tests/interop/chain_peer`, `chain.mjs
 * resolve`). Other namespaces (400 `invalidDid`, no peer needed) are `pkh_local_test.ts`.
 */
import assert from "node:assert/strict";
import { chainInterop, driverAnswers } from "../interop/chain_peer.ts";
import { createTestContext, expectJson } from "../support/context.ts";

const EXAMPLES = [
  "did:pkh:eip155:1:0xb9c5714089478a327f09197987f16f9e5d936e8a",
  "did:pkh:bip122:000000000019d6689c085ae165831e93:128Lkh3S7CkDTBZ8W7BbpsN3YYizJMp8p6",
  "did:pkh:tezos:NetXdQprcVkpaWU:tz1TzrmTBSuiVHV2VfMnGRMYvTEPCP42oSM8",
];

Deno.test({
  name: "did:pkh eip155, bip122 and tezos examples equal pkh-did-resolver's answers",
  ...chainInterop,
  fn: async () => {
    const requests = EXAMPLES.flatMap((didUrl) => [
      { didUrl, accept: "application/did+ld+json" },
      { didUrl, accept: "application/did+json" },
    ]);
    const theirs = await driverAnswers({}, requests);
    const ctx = await createTestContext();
    try {
      const token = await ctx.token();
      for (const did of EXAMPLES) {
        const ld = theirs.get(`${did} application/did+ld+json`)!;
        for (const prefix of ["/dids/", "/1.0/identifiers/"]) {
          const body = await expectJson(await ctx.call("GET", prefix + did, { token }), 200);
          assert.deepEqual(body.didDocument, ld.didDocument, did);
          assert.deepEqual(body.didDocumentMetadata, ld.didDocumentMetadata, did);
          const meta = body.didResolutionMetadata as Record<string, unknown>;
          assert.equal(meta.contentType, "application/did+ld+json");
          // Deterministic: kept like did:key, never "the cache".
          assert.equal(meta.servedFromCache, false);
          const res = await ctx.call("GET", prefix + did, {
            token,
            headers: { accept: "application/did+ld+json" },
          });
          assert.match(res.headers.get("cache-control") ?? "", /immutable/);
          assert.deepEqual(await expectJson(res, 200), ld.didDocument, did);
          // application/did+json is the driver's did+json answer (no @context).
          const json = theirs.get(`${did} application/did+json`)!;
          const bare = await ctx.call("GET", prefix + did, {
            token,
            headers: { accept: "application/did+json" },
          });
          assert.equal(bare.headers.get("content-type"), "application/did+json");
          assert.deepEqual(await expectJson(bare, 200), json.didDocument, did);
        }
      }
    } finally {
      await ctx.close();
    }
  },
});
