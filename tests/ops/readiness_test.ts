/**
 * Readiness (`GET /health/ready`): ready when KV answers and the dispatcher (where one runs) is
 * alive; 503 while the process drains or when its dispatcher is not running; a probe writes
 * nothing to KV.
 */
import assert from "node:assert/strict";
import { createApp } from "../../src/app.ts";
import { readinessCheck } from "../../src/boot/readiness.ts";
import { createTestContext, expectJson } from "../support/context.ts";

/** `kv` counting the writes made through it (set, delete, enqueue, atomic commits). */
function countingWrites(kv: Deno.Kv, writes: string[]): Deno.Kv {
  return new Proxy(kv, {
    get(target, prop) {
      const value = Reflect.get(target, prop, target);
      if (typeof value !== "function") return value;
      if (prop === "set" || prop === "delete" || prop === "enqueue") {
        return (...args: unknown[]) => {
          writes.push(`${prop} ${JSON.stringify(args[0])}`);
          return value.apply(target, args);
        };
      }
      if (prop === "atomic") {
        return () => {
          const op = target.atomic();
          const commit = op.commit.bind(op);
          op.commit = () => {
            writes.push("atomic commit");
            return commit();
          };
          return op;
        };
      }
      return value.bind(target);
    },
  });
}

/** Every key of `kv` with its versionstamp. */
async function snapshot(kv: Deno.Kv): Promise<string[]> {
  const out: string[] = [];
  for await (const e of kv.list({ prefix: [] })) {
    out.push(`${JSON.stringify(e.key)} ${e.versionstamp}`);
  }
  return out;
}

Deno.test("readiness reads only: 1,000 probes write nothing to KV", async () => {
  const writes: string[] = [];
  const ctx = await createTestContext({ wrapKv: (kv) => countingWrites(kv, writes) });
  try {
    // The counter works: the service wrote its startup records (signing key, …) through it.
    assert.ok(writes.length > 0, "startup writes are counted");
    const before = await snapshot(ctx.kv);
    writes.length = 0;
    for (let i = 0; i < 1000; i++) {
      const r = await ctx.call("GET", "/health/ready");
      assert.equal(r.status, 200);
      await r.body?.cancel();
    }
    assert.deepEqual(writes, [], "no write of any key during the probes");
    assert.deepEqual(await snapshot(ctx.kv), before, "every key and versionstamp as before");
  } finally {
    await ctx.close();
  }
});

Deno.test("readiness: 503 while draining and when the expected dispatcher loop is not running", async () => {
  const ctx = await createTestContext();
  try {
    let draining = false;
    const app = createApp(ctx.services, {
      ready: readinessCheck(ctx.services, { draining: () => draining, dispatcherExpected: true }),
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
