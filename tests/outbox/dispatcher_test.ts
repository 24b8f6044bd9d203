import assert from "node:assert/strict";
import { keys } from "../../src/kv/keys.ts";
import { Dispatcher } from "../../src/outbox/dispatcher.ts";
import { withBusyRetry } from "../../src/kv/mod.ts";
import { enqueue, type OutboxMessage, readMessage, requeueDead } from "../../src/outbox/outbox.ts";
import { setLogLevel } from "../../src/base/log.ts";
import { waitFor } from "../support/wait.ts";

setLogLevel("error");

async function tempKvPath(): Promise<string> {
  const dir = await Deno.makeTempDir({ prefix: "outbox_" });
  return `${dir}/kv.sqlite3`;
}

Deno.test("a message is only sent when the change that causes it commits", async () => {
  const kv = await Deno.openKv(":memory:");
  try {
    const op = kv.atomic().check({ key: ["thing"], versionstamp: "00000000000000010000" });
    const msg = enqueue(op, { kind: "probe", orgId: "org-a", payload: {} });
    assert.equal((await op.commit()).ok, false);
    assert.equal(await readMessage(kv, msg.id), null);
    const d = new Dispatcher(kv);
    let calls = 0;
    d.register("probe", { schedule: [], handle: () => (calls++, Promise.resolve({ ok: true })) });
    assert.equal(await d.runOnce(), 0);
    assert.equal(calls, 0);
  } finally {
    kv.close();
  }
});

/** A seeded pseudo-random source (mulberry32): the same jitter on every run. */
function seeded(seed: number): () => number {
  return () => {
    seed = (seed + 0x6d2b79f5) | 0;
    let t = Math.imul(seed ^ (seed >>> 15), 1 | seed);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

Deno.test("two dispatchers on one KV file deliver 500 messages, each handler call exactly once", async () => {
  const jitter = seeded(42);
  const path = await tempKvPath();
  // Two connections share one SQLite file, each wrapped as the service wraps its handle.
  const kvA = withBusyRetry(await Deno.openKv(path));
  const kvB = withBusyRetry(await Deno.openKv(path));
  const calls = new Map<string, number>();
  const handler = {
    schedule: [1000],
    handle: async (m: OutboxMessage) => {
      calls.set(m.id, (calls.get(m.id) ?? 0) + 1);
      await new Promise((r) => setTimeout(r, jitter() * 3));
      return { ok: true as const };
    },
  };
  const a = new Dispatcher(kvA, { pollMs: 10, concurrency: 16 }).register("probe", handler);
  const b = new Dispatcher(kvB, { pollMs: 10, concurrency: 16 }).register("probe", handler);
  try {
    for (let i = 0; i < 500; i += 50) {
      const op = kvA.atomic();
      for (let j = 0; j < 50; j++) {
        enqueue(op, { kind: "probe", orgId: `org-${j % 5}`, payload: { i: i + j } });
      }
      assert.ok((await op.commit()).ok);
    }
    a.start();
    b.start();
    await waitFor("all 500 messages handled", () => calls.size === 500, 20_000);
    await a.stop();
    await b.stop();
    assert.equal(calls.size, 500);
    assert.deepEqual([...new Set(calls.values())], [1]);
    let succeeded = 0;
    for await (const e of kvA.list<OutboxMessage>({ prefix: ["outbox"] })) {
      if (e.value.status === "succeeded") succeeded++;
    }
    assert.equal(succeeded, 500);
    const due = await Array.fromAsync(kvA.list({ prefix: keys.outboxDuePrefix() }));
    assert.equal(due.length, 0);
  } finally {
    await a.stop();
    await b.stop();
    kvA.close();
    kvB.close();
  }
});

Deno.test("failures follow the retry schedule, are recorded, then dead-letter with the hook in the same commit", async () => {
  const kv = await Deno.openKv(":memory:");
  let now = 1_700_000_000_000;
  const d = new Dispatcher(kv, { now: () => now });
  let calls = 0;
  d.register<{ n: number }>("probe", {
    schedule: [5_000, 60_000, 600_000],
    handle: () => {
      calls++;
      return Promise.resolve({ ok: false, error: "receiver said no", status: 500 });
    },
    onDead: (m, op) => void op.set(["dead_hook", m.id], true),
  });
  try {
    const op = kv.atomic();
    const msg = enqueue(op, { kind: "probe", orgId: "org-a", payload: { n: 1 } }, now);
    await op.commit();
    const expectedDelays = [5_000, 60_000, 600_000];
    for (const [i, delay] of expectedDelays.entries()) {
      assert.equal(await d.runOnce(), 1, `attempt ${i + 1}`);
      const cur = (await readMessage(kv, msg.id))!;
      assert.equal(cur.message.status, "pending");
      assert.equal(cur.message.dueAt, now + delay);
      // Not due a millisecond early.
      now += delay - 1;
      assert.equal(await d.runOnce(), 0);
      now += 1;
    }
    assert.equal(await d.runOnce(), 1);
    const dead = (await readMessage(kv, msg.id))!;
    assert.equal(dead.message.status, "dead");
    assert.equal(dead.attempts.length, 4);
    assert.deepEqual(dead.attempts.map((a) => a.n), [1, 2, 3, 4]);
    assert.ok(
      dead.attempts.every((a) => !a.ok && a.status === 500 && a.error === "receiver said no"),
    );
    assert.equal((await kv.get(["dead_hook", msg.id])).value, true);
    now += 10 * 3600_000;
    assert.equal(await d.runOnce(), 0);
    assert.equal(calls, 4);

    // A manual retry starts a fresh schedule.
    assert.equal((await requeueDead(kv, msg.id, now)).ok, true);
    assert.equal(await d.runOnce(), 1);
    const again = (await readMessage(kv, msg.id))!;
    assert.equal(again.message.status, "pending");
    assert.equal(again.message.dueAt, now + 5_000);
  } finally {
    kv.close();
  }
});

Deno.test("a final failure dead-letters at once; Retry-After is honoured within the schedule's bounds", async () => {
  const kv = await Deno.openKv(":memory:");
  let now = 1_700_000_000_000;
  const d = new Dispatcher(kv, { now: () => now });
  const results = [
    { ok: false as const, error: "busy", status: 429, retryAfterMs: 120_000 },
    { ok: false as const, error: "gone", status: 410, final: true },
  ];
  d.register("probe", {
    schedule: [5_000, 300_000],
    handle: () => Promise.resolve(results.shift()!),
  });
  try {
    const op = kv.atomic();
    const msg = enqueue(op, { kind: "probe", orgId: null, payload: {} }, now);
    await op.commit();
    await d.runOnce();
    assert.equal((await readMessage(kv, msg.id))!.message.dueAt, now + 120_000);
    now += 120_000;
    await d.runOnce();
    const m = (await readMessage(kv, msg.id))!;
    assert.equal(m.message.status, "dead");
    assert.equal(m.attempts.length, 2);
  } finally {
    kv.close();
  }
});

Deno.test("a message whose lease expired is taken again by another dispatcher", async () => {
  const kv = await Deno.openKv(":memory:");
  let now = 1_700_000_000_000;
  const stuck = new Dispatcher(kv, { now: () => now, leaseMs: 30_000 });
  const rescuer = new Dispatcher(kv, { now: () => now, leaseMs: 30_000 });
  let release: () => void = () => {};
  stuck.register("probe", {
    schedule: [],
    handle: () => new Promise((r) => (release = () => r({ ok: true }))),
  });
  let rescued = 0;
  rescuer.register("probe", {
    schedule: [],
    handle: () => (rescued++, Promise.resolve({ ok: true })),
  });
  try {
    const op = kv.atomic();
    const msg = enqueue(op, { kind: "probe", orgId: "org-a", payload: {} }, now);
    await op.commit();
    const pending = stuck.runOnce();
    await waitFor(
      "the stuck dispatcher's lease",
      async () => (await readMessage(kv, msg.id))!.message.leaseOwner !== null,
      20_000,
    );
    assert.equal(await rescuer.runOnce(), 0, "lease holds");
    now += 30_001;
    assert.equal(await rescuer.runOnce(), 1, "lease expired");
    assert.equal(rescued, 1);
    release();
    await pending;
    // The stuck dispatcher lost its lease: its late result does not overwrite the record.
    const m = (await readMessage(kv, msg.id))!;
    assert.equal(m.message.status, "succeeded");
    assert.equal(m.attempts.length, 1);
  } finally {
    kv.close();
  }
});
