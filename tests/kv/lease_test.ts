/**
 * The one lease on a piece of work (`src/kv/lease.ts`, used by both OpenID4VC holders), on a real
 * `:memory:` KV with a manual clock: one holder at a time, given back when the work ends (thrown
 * or not), run out after its time, and a lease that ran out and was taken over is not given back
 * by its first holder.
 */
import assert from "node:assert/strict";
import { AppError, conflict } from "../../src/base/mod.ts";
import { withLease } from "../../src/kv/mod.ts";

const KEY = ["test_lease", "org-a", "x1"];

Deno.test("withLease: one holder at a time; the lease is given back when the work ends, thrown or not", async () => {
  const kv = await Deno.openKv(":memory:");
  try {
    let t = 1_000_000;
    const opts = { ms: 60_000, now: () => t, busy: () => conflict("x1 is busy") };
    const gate = Promise.withResolvers<void>();
    const started = Promise.withResolvers<void>();
    const first = withLease(kv, KEY, opts, async () => {
      started.resolve();
      await gate.promise;
      return "first";
    });
    await started.promise;
    let ran = false;
    await assert.rejects(
      withLease(kv, KEY, opts, () => {
        ran = true;
        return Promise.resolve("second");
      }),
      (e) => e instanceof AppError && e.status === 409 && /busy/.test(e.message),
    );
    assert.equal(ran, false, "the refused work never ran");
    gate.resolve();
    assert.equal(await first, "first");
    assert.equal((await kv.get(KEY)).value, null, "given back");

    await assert.rejects(withLease(kv, KEY, opts, () => Promise.reject(new Error("boom"))), /boom/);
    assert.equal((await kv.get(KEY)).value, null, "given back after a throw too");
    t += 1;
    assert.equal(await withLease(kv, KEY, opts, () => Promise.resolve("again")), "again");
  } finally {
    kv.close();
  }
});

Deno.test("withLease: a lease runs out; its first holder does not give back the one that took over", async () => {
  const kv = await Deno.openKv(":memory:");
  try {
    let t = 1_000_000;
    const opts = { ms: 60_000, now: () => t, busy: () => conflict("busy") };
    const gate = Promise.withResolvers<void>();
    const started = Promise.withResolvers<void>();
    const stuck = withLease(kv, KEY, opts, async () => {
      started.resolve();
      await gate.promise;
    });
    await started.promise;
    t += 60_001; // the stuck holder's lease ran out
    const inner = Promise.withResolvers<void>();
    const innerStarted = Promise.withResolvers<void>();
    const takeover = withLease(kv, KEY, opts, async () => {
      innerStarted.resolve();
      await inner.promise;
    });
    await innerStarted.promise;
    gate.resolve();
    await stuck;
    assert.equal(
      (await kv.get<{ until: number }>(KEY)).value?.until,
      t + 60_000,
      "the new holder's lease stays",
    );
    await assert.rejects(withLease(kv, KEY, opts, () => Promise.resolve()), /busy/);
    inner.resolve();
    await takeover;
    assert.equal((await kv.get(KEY)).value, null);
  } finally {
    kv.close();
  }
});
