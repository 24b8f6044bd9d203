/**
 * Readiness (`GET /health/ready`): ready when KV answers and the dispatcher (where one runs) is
 * alive; 503 while the process drains or when its dispatcher is not running; a probe writes
 * nothing to KV.
 */
import assert from "node:assert/strict";
import { createApp } from "../../src/app.ts";
import { createTestContext, expectJson } from "../support/context.ts";

Deno.test("readiness reads only: 1,000 probes write nothing to KV", async () => {
  const ctx = await createTestContext();
  try {
    const before = await ctx.kv.get(["health", "probe"]);
    for (let i = 0; i < 1000; i++) {
      const r = await ctx.call("GET", "/health/ready");
      assert.equal(r.status, 200);
      await r.body?.cancel();
    }
    const after = await ctx.kv.get(["health", "probe"]);
    assert.equal(after.versionstamp, before.versionstamp);
    const writes: unknown[] = [];
    for await (const e of ctx.kv.list({ prefix: [] })) writes.push(e.key);
    assert.deepEqual(writes.filter((k) => JSON.stringify(k).includes("health")), []);
  } finally {
    await ctx.close();
  }
});

Deno.test("readiness: 503 while draining and when the expected dispatcher loop is not running", async () => {
  const ctx = await createTestContext();
  try {
    let draining = false;
    const app = createApp(ctx.services, {
      processState: { draining: () => draining, dispatcherExpected: true },
    });
    const ready = () => app.request("/health/ready");
    const stopped = await expectJson(await ready(), 503);
    assert.match(stopped.message as string, /dispatcher is not running/);
    ctx.services.dispatcher.start();
    const ok = await expectJson(await ready(), 200);
    assert.equal(ok.status, "ready");
    assert.equal((ok.dispatcher as { running: boolean }).running, true);
    draining = true;
    const res = await ready();
    assert.equal(res.headers.get("retry-after"), "5");
    const body = await expectJson(res, 503);
    assert.equal(body.message, "The service is shutting down.");
  } finally {
    await ctx.close();
  }
});
