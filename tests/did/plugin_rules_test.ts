/**
 * DID plug-in rules that need no chain (CONTRACT "DID method plug-ins"):
 *
 * - a plug-in entry's own `timeoutMs` wins over `DID_DRIVER_TIMEOUT_MS` (and an entry without one
 *   gets the setting);
 * - a node error is `internalError` (500) whatever keyword the driver answers, and never cached:
 *   the real did:ethr plug-in (`DID_ETHR_NETWORKS`) against a JSON-RPC endpoint that answers every
 *   call with a node error, then with HTTP 500 (a stand-in for a failing node: a real node does not
 *   fail on demand; `chain_test.ts` runs the real one).
 */
import assert from "node:assert/strict";
import { driverMethods, type DriverPlugin } from "../../src/did/plugins/driver.ts";
import { createTestContext, expectJson, serveLocal } from "../support/context.ts";

type Body = {
  didResolutionMetadata: { error?: string; message?: string; servedFromCache?: boolean };
};

/** A driver call that never answers. */
const hang = () => new Promise<never>(() => {});

Deno.test("a plug-in entry's own timeoutMs wins over DID_DRIVER_TIMEOUT_MS; an entry without one gets the setting", async () => {
  const plugins: DriverPlugin[] = [
    { methods: ["quick"], kind: "network", timeoutMs: 150, driver: { quick: hang } },
    { methods: ["slowish"], kind: "network", driver: { slowish: hang } },
  ];
  const ctx = await createTestContext({
    build: { didResolver: { methods: driverMethods(plugins, { timeoutMs: 400 }) } },
  });
  try {
    const token = await ctx.token();
    for (const [did, ms] of [["did:quick:abc", 150], ["did:slowish:abc", 400]] as const) {
      const body = await expectJson(await ctx.call("GET", `/dids/${did}`, { token }), 500) as Body;
      assert.equal(body.didResolutionMetadata.error, "internalError", did);
      assert.match(String(body.didResolutionMetadata.message), new RegExp(`within ${ms} ms`), did);
    }
  } finally {
    await ctx.close();
  }
});

Deno.test("did:ethr: a node that answers errors (JSON-RPC error, then HTTP 500) is 500 internalError naming it, never cached", async () => {
  let calls = 0;
  let mode: "rpc-error" | "http-500" = "rpc-error";
  const node = serveLocal(async (req) => {
    calls++;
    const body = await req.json().catch(() => ({})) as { id?: number };
    if (mode === "http-500") return new Response("overloaded", { status: 500 });
    return Response.json({
      jsonrpc: "2.0",
      id: body.id ?? 1,
      error: { code: -32000, message: "header not found" },
    });
  });
  const ctx = await createTestContext({
    env: {
      DID_ETHR_NETWORKS: JSON.stringify([{
        name: "dev",
        chainId: 31337,
        rpcUrl: node.url,
        registry: "0xdca7ef03e98e0dc2b855be647c39abe984fcf21b",
      }]),
      DID_DRIVER_TIMEOUT_MS: "20000",
    },
  });
  try {
    const token = await ctx.token();
    const did = "did:ethr:dev:0x70997970c51812dc3a010c7d01b50e0d17dc79c8";
    for (const [round, why] of [[1, /header not found/], [2, /HTTP 500/]] as const) {
      if (round === 2) mode = "http-500";
      const before = calls;
      const body = await expectJson(await ctx.call("GET", `/dids/${did}`, { token }), 500) as Body;
      assert.equal(body.didResolutionMetadata.error, "internalError");
      assert.match(String(body.didResolutionMetadata.message), /could not reach its chain node/);
      assert.match(String(body.didResolutionMetadata.message), why);
      assert.ok(calls > before, `round ${round}: the node was asked (nothing was cached)`);
    }
  } finally {
    await ctx.close();
    await node.close();
  }
});
