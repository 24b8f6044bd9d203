import assert from "node:assert/strict";
import { emit } from "../../src/webhooks/emit.ts";
import { waitFor } from "../support/wait.ts";
import { receiver, register, webhookContext } from "./helpers.ts";

Deno.test("a hanging receiver of one org does not hold up another org's deliveries", async () => {
  const ctx = await webhookContext();
  let release!: () => void;
  const released = new Promise<void>((r) => (release = r));
  const slow = receiver(async () => {
    await released;
    return new Response(null, { status: 200 });
  });
  const fast = receiver();
  try {
    await register(ctx, "org-slow", slow.hook);
    await register(ctx, "org-fast", fast.hook);
    // A backlog of the hanging org first, due before the other org's events.
    let op = ctx.kv.atomic();
    for (let i = 0; i < 300; i++) {
      emit(op, "org-slow", "webhook.test", { i });
      if (i % 50 === 49) {
        assert.ok((await op.commit()).ok);
        op = ctx.kv.atomic();
      }
    }
    const t0 = Date.now();
    op = ctx.kv.atomic();
    for (let i = 0; i < 20; i++) emit(op, "org-fast", "webhook.test", { i });
    assert.ok((await op.commit()).ok);
    ctx.services.dispatcher.start();
    // While org-slow's receiver still holds every request it got, org-fast gets all 20.
    await waitFor("org-fast's 20 events", () => fast.got.length >= 20);
    console.log(`org-fast: 20 deliveries in ${Date.now() - t0} ms beside a hanging org`);
    assert.equal(fast.got.length, 20);
    // The hanging org holds at most its per-org share of the dispatcher.
    assert.ok(slow.got.length <= 8, `org-slow had ${slow.got.length} requests in flight`);
  } finally {
    release();
    await ctx.services.dispatcher.stop();
    await slow.close();
    await fast.close();
    await ctx.close();
  }
});
