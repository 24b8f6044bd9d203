import assert from "node:assert/strict";
import { expectJson, serveLocal } from "../support/context.ts";
import { parseRetryAfter, WEBHOOK_SCHEDULE } from "../../src/webhooks/delivery_handler.ts";
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
    const d = ctx.services.dispatcher;
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

Deno.test("after the last scheduled attempt the delivery is dead; a manual retry re-sends it with the same id", async () => {
  const clock = manualClock();
  const ctx = await webhookContext({ now: clock.now });
  let up = false;
  const rx = receiver(() => new Response(null, { status: up ? 200 : 500 }));
  try {
    await register(ctx, "org-a", rx.hook);
    const eventId = await sendTest(ctx, "org-a");
    const d = ctx.services.dispatcher;
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
    const d = ctx.services.dispatcher;
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

Deno.test("an attempt that gets no answer within the timeout fails and is retried", async () => {
  const ctx = await webhookContext({ handler: { timeoutMs: 300 } });
  let release!: () => void;
  const released = new Promise<void>((r) => (release = r));
  let answered = false;
  const rx = receiver(async () => {
    await released;
    answered = true;
    return new Response(null, { status: 200 });
  });
  try {
    await register(ctx, "org-a", rx.hook);
    await sendTest(ctx, "org-a");
    // The receiver holds its answer until the test ends: the attempt ended by its timeout.
    await ctx.services.dispatcher.runOnce();
    assert.equal(answered, false, "the receiver had not answered");
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
