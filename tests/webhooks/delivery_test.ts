import assert from "node:assert/strict";
import { Webhook } from "standardwebhooks";
import { expectJson } from "../support/context.ts";
import { emit } from "../../src/webhooks/emit.ts";
import {
  adminToken,
  deliveries,
  manualClock,
  receiver,
  register,
  sendTest,
  signedBy,
  webhookContext,
} from "./helpers.ts";

Deno.test("a delivery is a Standard Webhooks request that the standardwebhooks library verifies", async () => {
  const ctx = await webhookContext();
  const rx = receiver();
  try {
    const secret = await register(ctx, "org-a", rx.hook);
    const eventId = await sendTest(ctx, "org-a");
    assert.equal(await ctx.services.dispatcher.runOnce(), 1);
    assert.equal(rx.got.length, 1);
    const { headers, body } = rx.got[0]!;
    assert.equal(headers["content-type"], "application/json");
    assert.equal(headers["webhook-id"], eventId);
    assert.match(headers["webhook-timestamp"]!, /^\d{10}$/);
    assert.ok(Math.abs(Number(headers["webhook-timestamp"]) - Date.now() / 1000) < 5);
    assert.match(headers["webhook-signature"]!, /^v1,[A-Za-z0-9+/]{43}=$/);
    const verified = new Webhook(secret!).verify(body, headers) as Record<string, unknown>;
    assert.deepEqual(Object.keys(verified).sort(), ["data", "id", "orgId", "timestamp", "type"]);
    assert.equal(verified.id, eventId);
    // A tampered body or another secret does not verify.
    assert.throws(() => new Webhook(secret!).verify(body.replace("org-a", "org-b"), headers));
    const other = "whsec_" + btoa(String.fromCharCode(...new Uint8Array(32).fill(7)));
    assert.throws(() => new Webhook(other).verify(body, headers));
    const page = await deliveries(ctx, "org-a");
    assert.equal(page.data[0]!.status, "succeeded");
    assert.equal(page.data[0]!.attempts[0]!.status, 204);
  } finally {
    await rx.close();
    await ctx.close();
  }
});

Deno.test("during a rotation both secrets sign for 24 h; afterwards only the new one", async () => {
  const clock = manualClock();
  const ctx = await webhookContext({ now: clock.now });
  const rx = receiver();
  try {
    const oldSecret = (await register(ctx, "org-a", rx.hook))!;
    const token = await adminToken(ctx, { "org-a": ["owner"] });
    const res = await ctx.call("POST", "/notification/webhook-endpoint/rotate-secret", {
      token,
      body: { orgId: "org-a" },
    });
    const newSecret = ((await expectJson(res, 200)).data as { secret: string }).secret;
    await sendTest(ctx, "org-a");
    await ctx.services.dispatcher.runOnce();
    const first = rx.got[0]!;
    assert.equal(first.headers["webhook-signature"]!.split(" ").length, 2);
    new Webhook(newSecret).verify(first.body, first.headers);
    new Webhook(oldSecret).verify(first.body, first.headers);

    clock.advance(24 * 3600_000 + 1000);
    await sendTest(ctx, "org-a");
    await ctx.services.dispatcher.runOnce();
    const second = rx.got[1]!;
    const sigs = second.headers["webhook-signature"]!.split(" ");
    assert.equal(sigs.length, 1);
    // The clock is a day ahead of the library's, so compare with its signer directly.
    assert.equal(signedBy(newSecret, second), true);
    assert.equal(signedBy(oldSecret, second), false);
  } finally {
    await rx.close();
    await ctx.close();
  }
});

Deno.test("410 Gone dead-letters the delivery and disables the endpoint until it is registered again", async () => {
  const ctx = await webhookContext();
  const rx = receiver((_r, n) => new Response(null, { status: n === 1 ? 410 : 200 }));
  try {
    await register(ctx, "org-a", rx.hook);
    await sendTest(ctx, "org-a");
    await ctx.services.dispatcher.runOnce();
    const token = await adminToken(ctx, { "org-a": ["owner"] });
    const view = await expectJson(
      await ctx.call("GET", "/notification/webhook-endpoint?orgId=org-a", { token }),
      200,
    );
    assert.equal(view.enabled, false);
    assert.match(String(view.disabledReason), /410/);
    let page = await deliveries(ctx, "org-a");
    assert.equal(page.data[0]!.status, "dead");
    assert.equal(page.data[0]!.attempts.length, 1);
    assert.equal(page.data[0]!.attempts[0]!.status, 410);

    // While disabled: the test route refuses, and emitted events are skipped without a request.
    await expectJson(
      await ctx.call("POST", "/notification/webhook-endpoint/test", {
        token,
        body: { orgId: "org-a" },
      }),
      409,
    );
    const op = ctx.kv.atomic();
    emit(op, "org-a", "agent.configured", { orgId: "org-a" });
    assert.ok((await op.commit()).ok);
    await ctx.services.dispatcher.runOnce();
    assert.equal(rx.got.length, 1);
    page = await deliveries(ctx, "org-a");
    assert.equal(page.data[0]!.status, "succeeded");
    assert.equal(page.data[0]!.skipped, true);

    await register(ctx, "org-a", rx.hook);
    await sendTest(ctx, "org-a");
    await ctx.services.dispatcher.runOnce();
    assert.equal(rx.got.length, 2);
  } finally {
    await rx.close();
    await ctx.close();
  }
});

Deno.test("a redirect is a failed attempt and is not followed", async () => {
  const ctx = await webhookContext();
  const target = receiver();
  const rx = receiver(() =>
    new Response(null, { status: 302, headers: { location: target.hook } })
  );
  try {
    await register(ctx, "org-a", rx.hook);
    await sendTest(ctx, "org-a");
    await ctx.services.dispatcher.runOnce();
    assert.equal(rx.got.length, 1);
    assert.equal(target.got.length, 0);
    const d = (await deliveries(ctx, "org-a")).data[0]!;
    assert.equal(d.status, "failed");
    assert.equal(d.attempts[0]!.status, 302);
    assert.match(d.attempts[0]!.error!, /redirect/);
  } finally {
    await rx.close();
    await target.close();
    await ctx.close();
  }
});

Deno.test("with no endpoint registered a delivery is recorded as skipped (succeeded, no request)", async () => {
  const ctx = await webhookContext();
  try {
    const op = ctx.kv.atomic();
    const ev = emit(op, "org-a", "credential.state_changed", { state: "done" });
    assert.ok((await op.commit()).ok);
    await ctx.services.dispatcher.runOnce();
    const d = (await deliveries(ctx, "org-a")).data[0]!;
    assert.equal(d.eventId, ev.id);
    assert.equal(d.status, "succeeded");
    assert.equal(d.skipped, true);
    assert.equal(d.attempts.length, 1);
    assert.equal(d.attempts[0]!.status, undefined);
  } finally {
    await ctx.close();
  }
});

Deno.test("the delivery log: newest first, status filter, cursor pages, 403 for members, 400 for bad queries", async () => {
  const clock = manualClock();
  const ctx = await webhookContext({ now: clock.now });
  const rx = receiver((_r, n) => new Response(null, { status: n % 2 ? 200 : 500 }));
  try {
    await register(ctx, "org-a", rx.hook);
    const ids: string[] = [];
    for (let i = 0; i < 5; i++) {
      ids.push(await sendTest(ctx, "org-a"));
      clock.advance(1);
      await ctx.services.dispatcher.runOnce();
    }
    const all = await deliveries(ctx, "org-a");
    assert.deepEqual(all.data.map((d) => d.eventId), [...ids].reverse());
    assert.deepEqual(all.data.map((d) => d.status), [
      "succeeded",
      "failed",
      "succeeded",
      "failed",
      "succeeded",
    ]);
    assert.equal(all.nextCursor, null);
    const failed = await deliveries(ctx, "org-a", "&status=failed");
    assert.deepEqual(failed.data.map((d) => d.eventId), [ids[3], ids[1]]);
    const p1 = await deliveries(ctx, "org-a", "&limit=2");
    assert.equal(p1.data.length, 2);
    assert.ok(p1.nextCursor);
    const p2 = await deliveries(
      ctx,
      "org-a",
      `&limit=2&cursor=${encodeURIComponent(p1.nextCursor!)}`,
    );
    const p3 = await deliveries(
      ctx,
      "org-a",
      `&limit=2&cursor=${encodeURIComponent(p2.nextCursor!)}`,
    );
    assert.deepEqual(
      [...p1.data, ...p2.data, ...p3.data].map((d) => d.eventId),
      [...ids].reverse(),
    );
    assert.equal((await deliveries(ctx, "org-b")).data.length, 0);
    const member = await adminToken(ctx, { "org-a": ["member"] });
    await expectJson(
      await ctx.call("GET", "/notification/deliveries?orgId=org-a", { token: member }),
      403,
    );
    const owner = await adminToken(ctx, { "org-a": ["owner"] });
    for (const q of ["limit=0", "limit=201", "status=weird", "cursor=%%%"]) {
      await expectJson(
        await ctx.call("GET", `/notification/deliveries?orgId=org-a&${q}`, { token: owner }),
        400,
      );
    }
    await expectJson(await ctx.call("GET", "/notification/deliveries", { token: owner }), 400);
  } finally {
    await rx.close();
    await ctx.close();
  }
});
