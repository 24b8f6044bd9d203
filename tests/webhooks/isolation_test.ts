import assert from "node:assert/strict";
import { emit } from "../../src/webhooks/emit.ts";
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
    const deadline = Date.now() + 10_000;
    while (fast.got.length < 20 && Date.now() < deadline) {
      await new Promise((r) => setTimeout(r, 20));
    }
    const took = Date.now() - t0;
    assert.equal(fast.got.length, 20, `org-fast got ${fast.got.length} of 20 in ${took} ms`);
    assert.ok(took < 5_000, `org-fast took ${took} ms`);
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
