/**
 * Scale-out scenarios (CONTRACT "Running": no request fails, and no message is lost or sent under
 * two ids, because another process writes at the same time or dies), run by two real service
 * processes (`src/main.ts`) on one KV database with the same SECRETS_KEY and PUBLIC_URL, as
 * instances behind one address are. The database is a {@link KvBackend}: one SQLite file
 * (`tests/ops/two_processes_test.ts`) or a real `denokv` server over KV Connect
 * (`tests/kv_connect/`), so the same scenarios prove both.
 */
import assert from "node:assert/strict";
import { createIdp, serveLocal, signToken, type TestIdp } from "./context.ts";
import { serviceEnv, type ServiceProcess, startService } from "./service_process.ts";
import { waitFor } from "./wait.ts";
import { keys } from "../../src/kv/mod.ts";
import type { OutboxMessage } from "../../src/outbox/mod.ts";

/** Where the processes' KV lives: their environment for it, and a handle for the test itself. */
export interface KvBackend {
  /** `KV_PATH` (and `DENO_KV_ACCESS_TOKEN` for KV Connect). */
  env: Record<string, string>;
  /** A handle of the test's own on the same database (closed by the caller). */
  open(): Promise<Deno.Kv>;
}

/** The SQLite file `<dir>/kv.sqlite3`. */
export function fileBackend(dir: string): KvBackend {
  const path = `${dir}/kv.sqlite3`;
  return { env: { KV_PATH: path }, open: () => Deno.openKv(path) };
}

/** Two service processes on one database. */
export interface Pair {
  a: ServiceProcess;
  b: ServiceProcess;
  idp: TestIdp;
  kv: KvBackend;
  /** Kills both (SIGKILL). */
  close(): Promise<void>;
}

/** Starts two service processes on `kv`, with `extra` environment. */
export async function pair(kv: KvBackend, extra: Record<string, string> = {}): Promise<Pair> {
  const dir = await Deno.makeTempDir({ prefix: "two_procs_" });
  const idp = await createIdp();
  const envA = serviceEnv(idp, dir, { LOG_LEVEL: "error", ...kv.env, ...extra });
  const envB = serviceEnv(idp, dir, {
    LOG_LEVEL: "error",
    SECRETS_KEY: envA.SECRETS_KEY,
    PUBLIC_URL: envA.PUBLIC_URL,
    ...kv.env,
    ...extra,
  });
  const a = await startService(envA);
  const b = await startService(envB).catch(async (err) => {
    await a.kill();
    throw err;
  });
  return {
    a,
    b,
    idp,
    kv,
    close: async () => {
      await Promise.all([a.kill(), b.kill()]);
      await Deno.remove(dir, { recursive: true });
    },
  };
}

/** Runs `tasks` with at most `n` in flight. */
export async function inFlight<T>(n: number, tasks: (() => Promise<T>)[]): Promise<T[]> {
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

/**
 * 400 webhook endpoint registrations (16 in flight, alternating processes): every one 201, none
 * 5xx, each readable from the other process.
 */
export async function concurrentWrites(p: Pair, label: string): Promise<void> {
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
    `${label}: ${statuses.length} writes, ${count(201)} 201, ` +
      `${statuses.filter((s) => s >= 500).length} 5xx`,
  );
  assert.equal(statuses.filter((s) => s >= 500).length, 0, JSON.stringify(statuses));
  assert.equal(count(201), 400);
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
}

/** A webhook receiver that records every arrival and can hold requests while its gate is shut. */
export interface Receiver {
  url: string;
  /** Arrivals; `tag`: what the test had set when it arrived. */
  got: { headerId: string; bodyId: string; tag: string }[];
  /** Set the tag of later arrivals. */
  tag(t: string): void;
  /** Hold every later request until `open()`. */
  shut(): void;
  open(): void;
  close(): Promise<void>;
}

/** A local webhook receiver (204 after a short pause, or when its gate opens). */
export function receiver(): Receiver {
  const got: Receiver["got"] = [];
  let tag = "";
  let openGate = () => {};
  let gate: Promise<void> | null = null;
  const rx = serveLocal(async (req) => {
    const body = JSON.parse(await req.text());
    got.push({ headerId: req.headers.get("webhook-id")!, bodyId: body.id, tag });
    await (gate ?? new Promise((r) => setTimeout(r, 20)));
    return new Response(null, { status: 204 });
  });
  return {
    url: rx.url,
    got,
    tag: (t) => (tag = t),
    shut: () => (gate = new Promise((r) => openGate = r)),
    open: () => {
      openGate();
      gate = null;
    },
    close: () => rx.close(),
  };
}

/** Registers `rx` as org `orgId`'s webhook endpoint through `svc`; the owner's headers. */
export async function registerReceiver(
  p: Pair,
  svc: ServiceProcess,
  orgId: string,
  rx: Receiver,
): Promise<Record<string, string>> {
  const token = await signToken(p.idp, { orgs: { [orgId]: ["owner"] } });
  const headers = { authorization: `Bearer ${token}`, "content-type": "application/json" };
  const reg = await fetch(`${svc.base}/notification/register/webhook-endpoint`, {
    method: "POST",
    headers,
    body: JSON.stringify({ orgId, notificationWebhook: `${rx.url}/hook` }),
  });
  assert.equal(reg.status, 201);
  await reg.body?.cancel();
  return headers;
}

/** `POST /notification/webhook-endpoint/test` through `svc`: its status and event id. */
export async function sendTestEvent(
  svc: ServiceProcess,
  headers: Record<string, string>,
  orgId: string,
): Promise<{ status: number; eventId?: string }> {
  const res = await fetch(`${svc.base}/notification/webhook-endpoint/test`, {
    method: "POST",
    headers,
    body: JSON.stringify({ orgId }),
  });
  if (res.status !== 202) {
    await res.body?.cancel();
    return { status: res.status };
  }
  return { status: 202, eventId: (await res.json()).data.eventId };
}

/**
 * 120 webhook test events through both processes; one is killed (SIGKILL) while it holds
 * deliveries (the receiver holds them): every event is delivered, the killed process's held ones
 * by the other, 120 distinct ids, each arrival's `webhook-id` its event id.
 */
export async function killTakeover(p: Pair, label: string): Promise<void> {
  const rx = receiver();
  try {
    const headers = await registerReceiver(p, p.a, "org-w", rx);
    const ids = await inFlight(
      8,
      Array.from({ length: 120 }, (_, i) => async () => {
        const sent = await sendTestEvent(i % 2 === 0 ? p.a : p.b, headers, "org-w");
        assert.equal(sent.status, 202);
        return sent.eventId!;
      }),
    );
    // Kill one process while deliveries are under way: while the gate is shut, the deliveries a
    // process has under way cannot finish, so the one killed is sure to die holding some.
    await waitFor("deliveries under way", () => rx.got.length >= 10);
    rx.shut();
    const gatedFrom = rx.got.length; // arrivals from here on are held
    await waitFor("the process to be killed holding a held delivery", async () => {
      const held = new Set(rx.got.slice(gatedFrom).map((g) => g.headerId));
      return (await leasedTo(p.kv, p.a.child.pid)).some((id) => held.has(id));
    });
    const killedAt = rx.got.length;
    await p.a.kill();
    rx.tag("after kill");
    rx.open();
    // What it held when it died: pending messages still leased to it (their leases run out
    // only after OUTBOX_LEASE_SECONDS, and nothing else may take them before).
    const heldByKilled = await leasedTo(p.kv, p.a.child.pid);
    assert.ok(heldByKilled.length > 0, "the killed process held deliveries when it died");
    await waitFor(
      "every event delivered",
      () => ids.every((id) => rx.got.some((g) => g.headerId === id)),
      30_000,
    );
    // The other process took over: each of those arrived again after the kill.
    await waitFor(
      "the killed process's deliveries made by the other",
      () =>
        heldByKilled.every((id) => rx.got.some((g) => g.tag === "after kill" && g.headerId === id)),
      30_000,
    );
    const unique = new Set(rx.got.map((g) => g.headerId));
    console.log(
      `${label}: 120 events, killed one after ${killedAt} arrivals holding ` +
        `${heldByKilled.length}, ${rx.got.length} arrivals, ${unique.size} distinct ids`,
    );
    assert.equal(unique.size, 120);
    for (const g of rx.got) assert.equal(g.headerId, g.bodyId, "webhook-id is the event id");
    assert.ok(rx.got.every((g) => ids.includes(g.headerId)));
  } finally {
    await rx.close();
  }
}

/** Ids of the pending outbox messages leased to the process `pid` (`leaseOwner` names it). */
export async function leasedTo(backend: KvBackend, pid: number): Promise<string[]> {
  const kv = await backend.open();
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

/** An agent token minted by one process is accepted by the other, both ways. */
export async function tokenAcrossProcesses(p: Pair): Promise<void> {
  const owner = await signToken(p.idp, { orgs: { "org-t": ["owner"] } });
  const apiKey = "k3y-" + crypto.randomUUID();
  const conf = await fetch(`${p.a.base}/orgs/org-t/agents/configure`, {
    method: "POST",
    headers: { authorization: `Bearer ${owner}`, "content-type": "application/json" },
    body: JSON.stringify({ walletName: "Twin", agentEndpoint: `${p.a.base}/didcomm`, apiKey }),
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
  const fromB = await fetch(`${p.b.base}/agent/token`, {
    method: "POST",
    headers: { authorization: apiKey },
  });
  const back = await fetch(`${p.a.base}/me`, {
    headers: { authorization: `Bearer ${(await fromB.json()).token}` },
  });
  assert.equal(back.status, 200);
  await back.body?.cancel();
}
