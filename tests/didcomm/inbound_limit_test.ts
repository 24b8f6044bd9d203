/**
 * The per-source limit of `POST /didcomm` (CONTRACT "Operations", `DIDCOMM_RATE_LIMIT`): every
 * message a source address sends in a minute is counted before its envelope is read, across every
 * process on the KV database; past the limit 429 with `Retry-After` (the end of the minute); a
 * peer that keeps within it is never refused, however its messages overlap.
 *
 * Requests go through `app.fetch(request, info)` with the `remoteAddr` that `Deno.serve` hands the
 * app, as in production. Envelopes are malformed (400): the limit does not look at them.
 */
import assert from "node:assert/strict";
import { createTestContext, randomSecretsKey, type TestContext } from "../support/context.ts";

const WINDOW = 60_000;

/** A clock at `offset` ms into a fixed window, moved by `advance`. */
function windowClock(offset = 5_000) {
  let t = Math.floor(Date.now() / WINDOW) * WINDOW + offset;
  return { now: () => t, advance: (ms: number) => (t += ms) };
}

/** POST /didcomm from `address`. */
function postFrom(ctx: TestContext, address: string): Promise<Response> {
  const req = new Request("http://127.0.0.1:8000/didcomm", {
    method: "POST",
    headers: { "content-type": "application/didcomm-envelope-enc" },
    body: JSON.stringify({ protected: "x", iv: "x", ciphertext: "x", tag: "x" }),
  });
  const info = { remoteAddr: { transport: "tcp", hostname: address, port: 40000 } };
  return Promise.resolve(ctx.app.fetch(req, info));
}

/** Sends `n` messages from `address`, `inFlight` at a time; the statuses. */
async function send(ctx: TestContext, address: string, n: number, inFlight = 1) {
  const statuses: number[] = [];
  const retryAfter: string[] = [];
  let next = 0;
  await Promise.all(Array.from({ length: inFlight }, async () => {
    while (next++ < n) {
      const res = await postFrom(ctx, address);
      statuses.push(res.status);
      if (res.status === 429) retryAfter.push(res.headers.get("retry-after")!);
      await res.body?.cancel();
    }
  }));
  return {
    admitted: statuses.filter((s) => s === 400).length,
    limited: statuses.filter((s) => s === 429).length,
    other: statuses.filter((s) => s !== 400 && s !== 429),
    retryAfter,
  };
}

Deno.test("POST /didcomm: past DIDCOMM_RATE_LIMIT a minute from one address, 429 with Retry-After; other addresses and the next minute are not refused", async () => {
  const clock = windowClock(15_000);
  const ctx = await createTestContext({ now: clock.now, env: { DIDCOMM_RATE_LIMIT: "5" } });
  try {
    const a = await send(ctx, "203.0.113.7", 8);
    assert.deepEqual([a.admitted, a.limited, a.other], [5, 3, []]);
    assert.deepEqual(a.retryAfter, ["45", "45", "45"], "the seconds left in the minute");
    const res = await postFrom(ctx, "203.0.113.7");
    assert.equal(res.status, 429);
    assert.match(res.headers.get("content-type")!, /json/);
    const body = await res.json();
    assert.match(body.message, /More than 5 DIDComm messages a minute came from your address/);

    const b = await send(ctx, "2001:db8::1", 5);
    assert.deepEqual([b.admitted, b.limited], [5, 0], "another address has its own count");
    clock.advance(WINDOW);
    const next = await send(ctx, "203.0.113.7", 5);
    assert.deepEqual([next.admitted, next.limited], [5, 0], "a new minute, a new count");
  } finally {
    await ctx.close();
  }
});

Deno.test("POST /didcomm: a peer that keeps within the limit is never refused, 32 messages in flight at a time, minute after minute", async () => {
  const clock = windowClock();
  const ctx = await createTestContext({ now: clock.now, env: { DIDCOMM_RATE_LIMIT: "60" } });
  try {
    for (let minute = 0; minute < 3; minute++) {
      const r = await send(ctx, "198.51.100.4", 60, 32);
      assert.deepEqual([r.admitted, r.limited, r.other], [60, 0, []], `minute ${minute}`);
      clock.advance(WINDOW);
    }
    // And exactly the limit is admitted when more arrive at once.
    const flood = await send(ctx, "198.51.100.4", 200, 32);
    assert.deepEqual([flood.admitted, flood.limited, flood.other], [60, 140, []]);
  } finally {
    await ctx.close();
  }
});

Deno.test("POST /didcomm: the count is shared by every process on the KV database", async () => {
  const dir = await Deno.makeTempDir({ prefix: "inbound_limit_" });
  const clock = windowClock();
  const env = { DIDCOMM_RATE_LIMIT: "10", SECRETS_KEY: randomSecretsKey() };
  const one = await createTestContext({ now: clock.now, env, kvPath: `${dir}/kv.sqlite3` });
  const two = await createTestContext({ now: clock.now, env, kvPath: `${dir}/kv.sqlite3` });
  try {
    const [x, y] = await Promise.all([
      send(one, "192.0.2.9", 20, 8),
      send(two, "192.0.2.9", 20, 8),
    ]);
    assert.equal(x.admitted + y.admitted, 10);
    assert.equal(x.limited + y.limited, 30);
    assert.deepEqual([...x.other, ...y.other], []);
  } finally {
    await one.close();
    await two.close();
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("DIDCOMM_RATE_LIMIT=0: no limit", async () => {
  const ctx = await createTestContext({ env: { DIDCOMM_RATE_LIMIT: "0" } });
  try {
    const r = await send(ctx, "203.0.113.8", 50, 8);
    assert.deepEqual([r.admitted, r.limited], [50, 0]);
  } finally {
    await ctx.close();
  }
});
