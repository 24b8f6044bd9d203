/** The one lazy loader (`src/base/lazy.ts`): one load shared by concurrent callers, a failed load tried again. */
import assert from "node:assert/strict";
import { lazy } from "../../src/base/mod.ts";

Deno.test("lazy: nothing loads before the first call; callers at the same time share one load", async () => {
  let loads = 0;
  const gate = Promise.withResolvers<void>();
  const load = lazy(async () => {
    loads++;
    await gate.promise;
    return { n: loads };
  });
  assert.equal(loads, 0);
  const a = load();
  const b = load();
  assert.equal(a, b, "the same promise");
  gate.resolve();
  const [x, y] = await Promise.all([a, b]);
  assert.equal(x, y);
  assert.equal(await load(), x, "later calls get the loaded value");
  assert.equal(loads, 1);
});

Deno.test("lazy: a failed load reaches its callers and is tried again on the next call", async () => {
  let loads = 0;
  const load = lazy(() => {
    loads++;
    return loads === 1 ? Promise.reject(new Error("fetch failed")) : Promise.resolve("ok");
  });
  const [a, b] = await Promise.allSettled([load(), load()]);
  assert.equal(a.status, "rejected");
  assert.equal(b.status, "rejected");
  assert.equal(loads, 1, "concurrent callers shared the failed load");
  assert.equal(await load(), "ok");
  assert.equal(await load(), "ok");
  assert.equal(loads, 2);
});

Deno.test("lazy: a load that throws before it awaits fails the call, not the caller's stack", async () => {
  let loads = 0;
  const load = lazy((): Promise<number> => {
    loads++;
    if (loads === 1) throw new Error("synchronous");
    return Promise.resolve(loads);
  });
  await assert.rejects(load(), /synchronous/);
  assert.equal(await load(), 2);
});
