/**
 * Scale-out on one machine: two real service processes (`src/main.ts`) share one KV file, the
 * same SECRETS_KEY and PUBLIC_URL (as instances behind one address do). CONTRACT "Running": no
 * request fails and no message is lost or sent under two ids because the other process writes at
 * the same time or dies.
 */
import assert from "node:assert/strict";
import { createIdp, serveLocal, signToken, type TestIdp } from "../support/context.ts";
import { serviceEnv, type ServiceProcess, startService } from "../support/service_process.ts";
import { waitFor } from "../support/wait.ts";
import { keys } from "../../src/kv/mod.ts";
import type { OutboxMessage } from "../../src/outbox/mod.ts";

interface Pair {
  a: ServiceProcess;
  b: ServiceProcess;
  idp: TestIdp;
  dir: string;
  /** The KV file both use. */
  kvPath: string;
  close(): Promise<void>;
}

/** Two service processes on one KV file. */
async function pair(extra: Record<string, string> = {}): Promise<Pair> {
  const dir = await Deno.makeTempDir({ prefix: "two_procs_" });
  const idp = await createIdp();
  const envA = serviceEnv(idp, dir, { LOG_LEVEL: "error", ...extra });
  const envB = serviceEnv(idp, dir, {
    LOG_LEVEL: "error",
    SECRETS_KEY: envA.SECRETS_KEY,
    PUBLIC_URL: envA.PUBLIC_URL,
    ...extra,
  });
  const a = await startService(envA);
  const b = await startService(envB);
  return {
    a,
    b,
    idp,
    dir,
    kvPath: envA.KV_PATH!,
    close: async () => {
      await Promise.all([a.kill(), b.kill()]);
      await Deno.remove(dir, { recursive: true });
    },
  };
}

/** Runs `tasks` with at most `n` in flight. */
async function inFlight<T>(n: number, tasks: (() => Promise<T>)[]): Promise<T[]> {
  const out: T[] = new Array(tasks.length);
  let next = 0;
  await Promise.all(Array.from({ length: n }, async () => {
    while (next < tasks.length) {
      const i = next++;
      out[i] = await tasks[i]!();
    }
  }));
  return out;
}

Deno.test("two processes on one KV file: 400 concurrent API writes, 0 5xx, each readable from the other", async () => {
  const p = await pair();
  try {
    const orgs = Array.from({ length: 400 }, (_, i) => `org-${i}`);
    const token = await signToken(p.idp, {
      orgs: Object.fromEntries(orgs.map((o) => [o, ["owner"]])),
    });
    const headers = { authorization: `Bearer ${token}`, "content-type": "application/json" };
    const statuses = await inFlight(
      16,
      orgs.map((orgId, i) => async () => {
        const svc = i % 2 === 0 ? p.a : p.b;
        const res = await fetch(`${svc.base}/notification/register/webhook-endpoint`, {
          method: "POST",
          headers,
          body: JSON.stringify({ orgId, notificationWebhook: `https://hooks.example/${orgId}` }),
        });
        await res.body?.cancel();
        return res.status;
      }),
    );
    const count = (s: number) => statuses.filter((x) => x === s).length;
    console.log(
      `two processes: ${statuses.length} writes, ${count(201)} 201, ` +
        `${statuses.filter((s) => s >= 500).length} 5xx`,
    );
    assert.equal(statuses.filter((s) => s >= 500).length, 0, JSON.stringify(statuses));
    assert.equal(count(201), 400);
    // Each is readable from the other process.
    const reads = await inFlight(
      16,
      orgs.map((orgId, i) => async () => {
        const other = i % 2 === 0 ? p.b : p.a;
        const res = await fetch(`${other.base}/notification/webhook-endpoint?orgId=${orgId}`, {
          headers,
        });
        const body = await res.json();
        return res.status === 200 && body.notificationWebhook === `https://hooks.example/${orgId}`;
      }),
    );
    assert.equal(reads.filter(Boolean).length, 400);
  } finally {
    await p.close();
  }
});

Deno.test("two processes: every webhook test event is delivered; the work a kill -9 cut off in one is delivered by the other; duplicates share their webhook-id", async () => {
  const p = await pair({ OUTBOX_LEASE_SECONDS: "2" });
  /** Arrivals; `afterKill`: it reached the receiver once the killed process was gone. */
  const got: { headerId: string; bodyId: string; afterKill: boolean }[] = [];
  let killed = false;
  // While the gate is shut the receiver holds every request it gets: the deliveries a process has
  // under way cannot finish, so the one killed is sure to die holding some.
  let openGate = () => {};
  let gate: Promise<void> | null = null;
  const rx = serveLocal(async (req) => {
    const body = JSON.parse(await req.text());
    got.push({ headerId: req.headers.get("webhook-id")!, bodyId: body.id, afterKill: killed });
    await (gate ?? new Promise((r) => setTimeout(r, 20)));
    return new Response(null, { status: 204 });
  });
  try {
    const token = await signToken(p.idp, { orgs: { "org-w": ["owner"] } });
    const headers = { authorization: `Bearer ${token}`, "content-type": "application/json" };
    const reg = await fetch(`${p.a.base}/notification/register/webhook-endpoint`, {
      method: "POST",
      headers,
      body: JSON.stringify({ orgId: "org-w", notificationWebhook: `${rx.url}/hook` }),
    });
    assert.equal(reg.status, 201);
    await reg.body?.cancel();
    const ids = await inFlight(
      8,
      Array.from({ length: 120 }, (_, i) => async () => {
        const svc = i % 2 === 0 ? p.a : p.b;
        const res = await fetch(`${svc.base}/notification/webhook-endpoint/test`, {
          method: "POST",
          headers,
          body: JSON.stringify({ orgId: "org-w" }),
        });
        assert.equal(res.status, 202);
        return (await res.json()).data.eventId as string;
      }),
    );
    // Kill one process while deliveries are under way.
    await waitFor("deliveries under way", () => got.length >= 10);
    gate = new Promise((r) => openGate = r);
    const gatedFrom = got.length; // arrivals from here on are held
    await waitFor("the process to be killed holding a held delivery", async () => {
      const held = new Set(got.slice(gatedFrom).map((g) => g.headerId));
      return (await leasedTo(p.kvPath, p.a.child.pid)).some((id) => held.has(id));
    });
    const killedAt = got.length;
    await p.a.kill();
    killed = true;
    openGate();
    gate = null;
    // What it held when it died: pending messages still leased to it (their leases run out
    // only after OUTBOX_LEASE_SECONDS, and nothing else may take them before).
    const heldByKilled = await leasedTo(p.kvPath, p.a.child.pid);
    assert.ok(heldByKilled.length > 0, "the killed process held deliveries when it died");
    await waitFor(
      "every event delivered",
      () => ids.every((id) => got.some((g) => g.headerId === id)),
      30_000,
    );
    // The other process took over: each of those arrived again after the kill.
    await waitFor(
      "the killed process's deliveries made by the other",
      () => heldByKilled.every((id) => got.some((g) => g.afterKill && g.headerId === id)),
      30_000,
    );
    const unique = new Set(got.map((g) => g.headerId));
    console.log(
      `two processes: 120 events, killed one after ${killedAt} arrivals holding ` +
        `${heldByKilled.length}, ${got.length} arrivals, ${unique.size} distinct ids`,
    );
    assert.equal(unique.size, 120);
    for (const g of got) assert.equal(g.headerId, g.bodyId, "webhook-id is the event id");
    assert.ok(got.every((g) => ids.includes(g.headerId)));
  } finally {
    await rx.close();
    await p.close();
  }
});

/** Ids of the pending outbox messages leased to the process `pid` (`leaseOwner` names it). */
async function leasedTo(kvPath: string, pid: number): Promise<string[]> {
  const kv = await Deno.openKv(kvPath);
  try {
    const ids: string[] = [];
    for await (const e of kv.list<OutboxMessage>({ prefix: keys.outboxMessagePrefix() })) {
      const m = e.value;
      if (m.status === "pending" && m.leaseOwner?.startsWith(`pid-${pid}-`)) ids.push(m.id);
    }
    return ids;
  } finally {
    kv.close();
  }
}

Deno.test("two processes: an agent token minted by one is accepted by the other", async () => {
  const p = await pair();
  try {
    const owner = await signToken(p.idp, { orgs: { "org-t": ["owner"] } });
    const apiKey = "k3y-" + crypto.randomUUID();
    const conf = await fetch(`${p.a.base}/orgs/org-t/agents/configure`, {
      method: "POST",
      headers: { authorization: `Bearer ${owner}`, "content-type": "application/json" },
      body: JSON.stringify({
        walletName: "Twin",
        agentEndpoint: `${p.a.base}/didcomm`,
        apiKey,
      }),
    });
    assert.equal(conf.status, 201, await conf.text());
    const minted = await fetch(`${p.a.base}/agent/token`, {
      method: "POST",
      headers: { authorization: apiKey },
    });
    assert.equal(minted.status, 200);
    const { token } = await minted.json();
    const elsewhere = await fetch(`${p.b.base}/orgs/org-t/connections`, {
      headers: { authorization: `Bearer ${token}` },
    });
    assert.equal(elsewhere.status, 200, await elsewhere.text());
    // And the other way round: B mints, A accepts.
    const fromB = await fetch(`${p.b.base}/agent/token`, {
      method: "POST",
      headers: { authorization: apiKey },
    });
    const back = await fetch(`${p.a.base}/me`, {
      headers: { authorization: `Bearer ${(await fromB.json()).token}` },
    });
    assert.equal(back.status, 200);
    await back.body?.cancel();
  } finally {
    await p.close();
  }
});
