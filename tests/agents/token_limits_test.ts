/**
 * `POST /agent/token` limits under floods: every attempt is counted atomically before a key is
 * verified, per client address (10 a minute) and per org (30 a minute); no more than the limit is
 * ever verified in a window however many requests run at once; a flood from one address does not
 * lock out a valid key from another address; X-Forwarded-For is believed only when the operator
 * says a proxy of theirs sets it.
 *
 * Requests go through `app.fetch(request, info)` with the `remoteAddr` that `Deno.serve` hands the
 * app, as in production.
 */
import assert from "node:assert/strict";
import { ADDRESS_LIMIT, ORG_LIMIT } from "../../src/agents/attempt_limits.ts";
import { expectJson, type TestContext } from "../support/context.ts";
import { agentsContext, configure } from "./helpers.ts";

/** A clock early in a fixed window, so that no flood of a test straddles two windows. */
function windowClock(): () => number {
  const t = Math.floor(Date.now() / 60_000) * 60_000 + 5_000;
  return () => t;
}

/** POST /agent/token from `address` with `apiKey` (and `?orgId=` when given). */
function tokenFrom(
  ctx: TestContext,
  address: string,
  apiKey: string,
  opts: { orgId?: string; headers?: Record<string, string> } = {},
): Promise<Response> {
  const q = opts.orgId ? `?orgId=${opts.orgId}` : "";
  const req = new Request(`http://127.0.0.1:8000/agent/token${q}`, {
    method: "POST",
    headers: { authorization: apiKey, ...opts.headers },
  });
  const info = { remoteAddr: { transport: "tcp", hostname: address, port: 40000 } };
  return Promise.resolve(ctx.app.fetch(req, info));
}

/** Runs `n` requests with `inFlight` at a time; returns the statuses. */
async function flood(n: number, inFlight: number, one: (i: number) => Promise<Response>) {
  const statuses: number[] = [];
  let next = 0;
  await Promise.all(Array.from({ length: inFlight }, async () => {
    while (next < n) {
      const res = await one(next++);
      statuses.push(res.status);
      await res.body?.cancel();
    }
  }));
  return {
    verified: statuses.filter((s) => s === 401).length,
    limited: statuses.filter((s) => s === 429).length,
    other: statuses.filter((s) => s !== 401 && s !== 429),
  };
}

for (const inFlight of [16, 64]) {
  Deno.test(`token limits: 500 wrong keys from one address, ${inFlight} in flight: exactly 10 verified, the rest 429`, async () => {
    const ctx = await agentsContext({ now: windowClock() });
    try {
      await expectJson((await configure(ctx, "org-a")).res, 201);
      const named = await flood(
        250,
        inFlight,
        () => tokenFrom(ctx, "198.51.100.7", "wrong-key-0123456789", { orgId: "org-a" }),
      );
      const anonymous = await flood(
        250,
        inFlight,
        (i) => tokenFrom(ctx, "198.51.100.7", `guess-${i}-0123456789abcdef`),
      );
      console.log(
        `${inFlight} in flight: named org ${named.verified} verified / ${named.limited} limited; ` +
          `no org ${anonymous.verified} / ${anonymous.limited}`,
      );
      assert.deepEqual(named.other, []);
      assert.deepEqual(anonymous.other, []);
      assert.equal(named.verified + anonymous.verified, ADDRESS_LIMIT.max);
      assert.equal(named.limited + anonymous.limited, 500 - ADDRESS_LIMIT.max);
    } finally {
      await ctx.close();
    }
  });
}

Deno.test("token limits: 64 in flight from 64 addresses at one org: exactly 30 verified in the window", async () => {
  let t = Math.floor(Date.now() / 60_000) * 60_000 + 5_000; // early in a window (see windowClock)
  const ctx = await agentsContext({ now: () => t });
  try {
    await expectJson((await configure(ctx, "org-a")).res, 201);
    const r = await flood(
      64,
      64,
      (i) => tokenFrom(ctx, `203.0.113.${i + 1}`, "wrong-key-0123456789", { orgId: "org-a" }),
    );
    console.log(`64 addresses, 64 in flight at one org: ${r.verified} verified, ${r.limited} 429`);
    assert.deepEqual(r.other, []);
    assert.equal(r.verified, ORG_LIMIT.max);
    // The next window starts afresh.
    t += 60_000;
    const again = await tokenFrom(ctx, "203.0.113.200", "wrong-key-0123456789", {
      orgId: "org-a",
    });
    assert.equal(again.status, 401);
    await again.body?.cancel();
  } finally {
    await ctx.close();
  }
});

Deno.test("token limits: during a flood from one address, a valid key from another address gets its token", async () => {
  const ctx = await agentsContext({ now: windowClock() });
  try {
    const a = await configure(ctx, "org-a");
    await expectJson(a.res, 201);
    let issued = 0;
    let refused = 0;
    const attacker = flood(
      400,
      32,
      (i) =>
        i % 2 === 0
          ? tokenFrom(ctx, "192.0.2.66", "wrong-key-0123456789", { orgId: "org-a" })
          : tokenFrom(ctx, "192.0.2.66", `guess-${i}-0123456789abcdef`),
    );
    const client = (async () => {
      for (let i = 0; i < 5; i++) {
        const res = await tokenFrom(ctx, "198.51.100.20", a.apiKey);
        if (res.status === 200) issued++;
        else refused++;
        await res.body?.cancel();
      }
    })();
    const [r] = await Promise.all([attacker, client]);
    console.log(
      `flood: attacker ${r.verified} verified / ${r.limited} limited; valid client ${issued} tokens, ${refused} refused`,
    );
    assert.equal(r.verified, ADDRESS_LIMIT.max);
    assert.equal(issued, 5);
    assert.equal(refused, 0);
  } finally {
    await ctx.close();
  }
});

Deno.test("token limits: X-Forwarded-For is ignored unless TRUST_PROXY_HEADERS=true, then its last entry is the client", async () => {
  const spoof = (i: number) => ({ "x-forwarded-for": `10.9.${i >> 8}.${i & 255}` });
  const strict = await agentsContext({ now: windowClock() });
  try {
    await expectJson((await configure(strict, "org-a")).res, 201);
    const r = await flood(
      40,
      8,
      (i) => tokenFrom(strict, "192.0.2.9", "wrong-key-0123456789", { headers: spoof(i) }),
    );
    assert.equal(r.verified, ADDRESS_LIMIT.max, "rotating the header escapes nothing");
  } finally {
    await strict.close();
  }
  const proxied = await agentsContext({
    now: windowClock(),
    env: { TRUST_PROXY_HEADERS: "true" },
  });
  try {
    const a = await configure(proxied, "org-a");
    // Behind the proxy every connection comes from it; the client is the entry it appended (the
    // last). The entries before it are whatever the client sent: the flood forges a new one each
    // time, so counting by the first entry would let every attempt through.
    const r = await flood(40, 8, (i) =>
      tokenFrom(proxied, "10.0.0.2", "wrong-key-0123456789", {
        headers: { "x-forwarded-for": `${spoof(i)["x-forwarded-for"]}, 192.0.2.9` },
      }));
    assert.equal(r.verified, ADDRESS_LIMIT.max, "counted at the appended address");
    assert.equal(r.limited, 40 - ADDRESS_LIMIT.max);
    // A client that forges the flooded address in front of its own is counted as itself.
    const other = await tokenFrom(proxied, "10.0.0.2", a.apiKey, {
      headers: { "x-forwarded-for": "192.0.2.9, 198.51.100.30" },
    });
    assert.equal(other.status, 200);
    await other.body?.cancel();
  } finally {
    await proxied.close();
  }
});

Deno.test("token limits: a 429 says when to come back: Retry-After is the seconds left in the window", async () => {
  const start = Math.floor(Date.now() / 60_000) * 60_000;
  let t = start + 5_000;
  const ctx = await agentsContext({ now: () => t });
  try {
    await expectJson((await configure(ctx, "org-a")).res, 201);
    const r = await flood(
      ADDRESS_LIMIT.max,
      4,
      () => tokenFrom(ctx, "192.0.2.44", "wrong-key-0123456789"),
    );
    assert.equal(r.verified, ADDRESS_LIMIT.max);
    const limited = await tokenFrom(ctx, "192.0.2.44", "wrong-key-0123456789");
    const body = await expectJson(limited, 429);
    assert.equal(body.error, "Too Many Requests");
    assert.equal(limited.headers.get("retry-after"), "55");
    assert.match(String(body.message), /try again in 55 s/);
    // Late in the window: what is left, rounded up, never 0.
    t = start + 59_500;
    const late = await tokenFrom(ctx, "192.0.2.44", "wrong-key-0123456789");
    await expectJson(late, 429);
    assert.equal(late.headers.get("retry-after"), "1");
    // And when it has passed, the address is counted afresh.
    t = start + 60_000;
    const next = await tokenFrom(ctx, "192.0.2.44", "wrong-key-0123456789");
    await expectJson(next, 401);
  } finally {
    await ctx.close();
  }
});
