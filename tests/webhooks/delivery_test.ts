import assert from "node:assert/strict";
import { Webhook } from "standardwebhooks";
import { expectJson, serveLocal } from "../support/context.ts";
import { parseRetryAfter, WEBHOOK_SCHEDULE } from "../../src/webhooks/delivery.ts";
import { emit } from "../../src/webhooks/emit.ts";
import {
  adminToken,
  manualClock,
  receiver,
  register,
  sendTest,
  signedBy,
  webhookContext,
} from "./helpers.ts";

type Delivery = {
  id: string;
  eventId: string;
  status: string;
  skipped: boolean;
  attempts: { n: number; ok: boolean; status?: number; error?: string }[];
  nextAttemptAt: string | null;
  lastError: string | null;
};

async function deliveries(
  ctx: Awaited<ReturnType<typeof webhookContext>>,
  orgId: string,
  query = "",
): Promise<{ data: Delivery[]; nextCursor: string | null }> {
  const token = await adminToken(ctx, { [orgId]: ["owner"] });
  const res = await ctx.call("GET", `/notification/deliveries?orgId=${orgId}${query}`, { token });
  return await expectJson(res, 200) as never;
}

Deno.test("a delivery is a Standard Webhooks request that the standardwebhooks library verifies", async () => {
  const ctx = await webhookContext();
  const rx = receiver();
  try {
    const secret = await register(ctx, "org-a", rx.hook);
    const eventId = await sendTest(ctx, "org-a");
    assert.equal(await ctx.deps.dispatcher.runOnce(), 1);
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
    await ctx.deps.dispatcher.runOnce();
    const first = rx.got[0]!;
    assert.equal(first.headers["webhook-signature"]!.split(" ").length, 2);
    new Webhook(newSecret).verify(first.body, first.headers);
    new Webhook(oldSecret).verify(first.body, first.headers);

    clock.advance(24 * 3600_000 + 1000);
    await sendTest(ctx, "org-a");
    await ctx.deps.dispatcher.runOnce();
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

Deno.test("a receiver that is down for the first 3 attempts gets the event on the 4th with the same webhook-id", async () => {
  const clock = manualClock();
  const ctx = await webhookContext({ now: clock.now });
  // Reserve a port, then close it so that the first attempts are refused.
  const probe = serveLocal(() => new Response());
  const port = probe.port;
  await probe.close();
  const seen: { id: string; body: string; signed: boolean }[] = [];
  let server: ReturnType<typeof Deno.serve> | undefined;
  try {
    const secret = await register(ctx, "org-a", `http://127.0.0.1:${port}/hook`);
    const eventId = await sendTest(ctx, "org-a");
    const d = ctx.deps.dispatcher;
    assert.equal(await d.runOnce(), 1);
    clock.advance(4_000);
    assert.equal(await d.runOnce(), 0, "not due before 5 s");
    clock.advance(1_000);
    assert.equal(await d.runOnce(), 1);
    clock.advance(5 * 60_000);
    assert.equal(await d.runOnce(), 1);
    let page = await deliveries(ctx, "org-a");
    assert.equal(page.data[0]!.status, "failed");
    assert.equal(page.data[0]!.attempts.length, 3);
    for (const a of page.data[0]!.attempts) {
      assert.equal(a.ok, false);
      assert.match(a.error!, /Could not reach 127\.0\.0\.1/);
    }
    assert.equal(
      page.data[0]!.nextAttemptAt,
      new Date(clock.now() + 30 * 60_000).toISOString(),
    );

    server = Deno.serve({ port, hostname: "127.0.0.1", onListen: () => {} }, async (req) => {
      const body = await req.text();
      const headers = Object.fromEntries(req.headers);
      const signed = signedBy(secret!, { headers, body, at: Date.now() });
      seen.push({ id: req.headers.get("webhook-id")!, body, signed });
      return new Response("ok");
    });
    clock.advance(30 * 60_000);
    assert.equal(await d.runOnce(), 1);
    assert.equal(seen.length, 1);
    assert.equal(seen[0]!.id, eventId);
    assert.equal(seen[0]!.signed, true);
    assert.equal(JSON.parse(seen[0]!.body).id, eventId);
    page = await deliveries(ctx, "org-a");
    assert.equal(page.data[0]!.status, "succeeded");
    assert.deepEqual(page.data[0]!.attempts.map((a) => a.ok), [false, false, false, true]);
    assert.equal(page.data[0]!.attempts[3]!.status, 200);
  } finally {
    await server?.shutdown();
    await ctx.close();
  }
});

Deno.test("410 Gone dead-letters the delivery and disables the endpoint until it is registered again", async () => {
  const ctx = await webhookContext();
  const rx = receiver((_r, n) => new Response(null, { status: n === 1 ? 410 : 200 }));
  try {
    await register(ctx, "org-a", rx.hook);
    await sendTest(ctx, "org-a");
    await ctx.deps.dispatcher.runOnce();
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
    await ctx.deps.dispatcher.runOnce();
    assert.equal(rx.got.length, 1);
    page = await deliveries(ctx, "org-a");
    assert.equal(page.data[0]!.status, "succeeded");
    assert.equal(page.data[0]!.skipped, true);

    await register(ctx, "org-a", rx.hook);
    await sendTest(ctx, "org-a");
    await ctx.deps.dispatcher.runOnce();
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
    await ctx.deps.dispatcher.runOnce();
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

Deno.test("after the last scheduled attempt the delivery is dead; a manual retry re-sends it with the same id", async () => {
  const clock = manualClock();
  const ctx = await webhookContext({ now: clock.now });
  let up = false;
  const rx = receiver(() => new Response(null, { status: up ? 200 : 500 }));
  try {
    await register(ctx, "org-a", rx.hook);
    const eventId = await sendTest(ctx, "org-a");
    const d = ctx.deps.dispatcher;
    assert.equal(await d.runOnce(), 1);
    for (const delay of WEBHOOK_SCHEDULE) {
      clock.advance(delay);
      assert.equal(await d.runOnce(), 1);
    }
    clock.advance(48 * 3600_000);
    assert.equal(await d.runOnce(), 0);
    assert.equal(rx.got.length, 8);
    const dead = await deliveries(ctx, "org-a", "&status=dead");
    assert.equal(dead.data.length, 1);
    const id = dead.data[0]!.id;
    assert.equal(dead.data[0]!.attempts.length, 8);
    assert.match(dead.data[0]!.lastError!, /500/);

    const retry = (token: string, body?: unknown) =>
      ctx.call("POST", `/notification/deliveries/${id}/retry`, { token, body });
    await expectJson(await retry(await adminToken(ctx, { "org-a": ["member"] })), 403);
    await expectJson(await retry(await adminToken(ctx, { "org-b": ["owner"] })), 404);
    const owner = await adminToken(ctx, { "org-a": ["owner"] });
    await expectJson(await retry(owner, { orgId: "org-b" }), 404);
    await expectJson(
      await ctx.call("POST", "/notification/deliveries/nope/retry", { token: owner }),
      404,
    );
    await expectJson(await ctx.call("POST", `/notification/deliveries/${id}/retry`), 401);
    up = true;
    const queued = await expectJson(await retry(owner, { orgId: "org-a" }), 202);
    // Queued again at once; "failed" because its last attempt failed and a retry is due.
    assert.equal(queued.status, "failed");
    assert.equal(queued.nextAttemptAt, new Date(clock.now()).toISOString());
    await expectJson(await retry(owner), 409);
    assert.equal(await d.runOnce(), 1);
    assert.equal(rx.got.length, 9);
    assert.ok(rx.got.every((g) => g.headers["webhook-id"] === eventId));
    const after = (await deliveries(ctx, "org-a")).data[0]!;
    assert.equal(after.status, "succeeded");
    assert.equal(after.attempts.length, 9);
    await expectJson(await retry(owner), 409);
  } finally {
    await rx.close();
    await ctx.close();
  }
});

Deno.test("429 and 503 honour Retry-After within the schedule's bounds", async () => {
  const clock = manualClock();
  const ctx = await webhookContext({ now: clock.now });
  const answers = [
    new Response(null, { status: 429, headers: { "retry-after": "120" } }),
    new Response(null, { status: 503, headers: { "retry-after": "99999999" } }),
    new Response(null, { status: 503, headers: { "retry-after": "1" } }),
  ];
  const rx = receiver((_r, n) => answers[n - 1] ?? new Response(null, { status: 200 }));
  try {
    await register(ctx, "org-a", rx.hook);
    await sendTest(ctx, "org-a");
    const d = ctx.deps.dispatcher;
    const next = async () => (await deliveries(ctx, "org-a")).data[0]!.nextAttemptAt;
    await d.runOnce();
    assert.equal(await next(), new Date(clock.now() + 120_000).toISOString());
    clock.advance(120_000);
    await d.runOnce();
    // Retry-After far beyond the schedule: capped at the longest delay (10 h).
    assert.equal(await next(), new Date(clock.now() + 10 * 3600_000).toISOString());
    clock.advance(10 * 3600_000);
    await d.runOnce();
    // Retry-After shorter than the scheduled delay (30 min for retry 3): the schedule wins.
    assert.equal(await next(), new Date(clock.now() + 30 * 60_000).toISOString());
  } finally {
    await rx.close();
    await ctx.close();
  }
});

Deno.test("with no endpoint registered a delivery is recorded as skipped (succeeded, no request)", async () => {
  const ctx = await webhookContext();
  try {
    const op = ctx.kv.atomic();
    const ev = emit(op, "org-a", "credential.state_changed", { state: "done" });
    assert.ok((await op.commit()).ok);
    await ctx.deps.dispatcher.runOnce();
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
      await ctx.deps.dispatcher.runOnce();
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

Deno.test("an attempt that gets no answer within the timeout fails and is retried", async () => {
  const ctx = await webhookContext({ handler: { timeoutMs: 300 } });
  let release!: () => void;
  const released = new Promise<void>((r) => (release = r));
  const rx = receiver(async () => {
    await released;
    return new Response(null, { status: 200 });
  });
  try {
    await register(ctx, "org-a", rx.hook);
    await sendTest(ctx, "org-a");
    const t0 = Date.now();
    await ctx.deps.dispatcher.runOnce();
    assert.ok(Date.now() - t0 < 5_000);
    const d = (await deliveries(ctx, "org-a")).data[0]!;
    assert.equal(d.status, "failed");
    assert.match(d.attempts[0]!.error!, /No answer from 127\.0\.0\.1:\d+ within 300 ms/);
  } finally {
    release();
    await rx.close();
    await ctx.close();
  }
});

Deno.test("Retry-After is read as seconds or as an HTTP date", () => {
  const now = Date.parse("2026-03-01T12:00:00Z");
  assert.equal(parseRetryAfter("30", now), 30_000);
  assert.equal(parseRetryAfter("Sun, 01 Mar 2026 12:02:00 GMT", now), 120_000);
  assert.equal(parseRetryAfter("Sun, 01 Mar 2026 11:00:00 GMT", now), 0);
  assert.equal(parseRetryAfter("soon", now), undefined);
  assert.equal(parseRetryAfter(null, now), undefined);
});
