/**
 * Never lost: the real service (`src/main.ts`) runs as a subprocess on a KV file with 200
 * webhook deliveries pending, is killed with SIGKILL, and after a restart on the same file every
 * event reaches the receiver at least once, duplicates sharing their `webhook-id`.
 */
import assert from "node:assert/strict";
import { Webhook } from "standardwebhooks";
import { createIdp, serveLocal, signToken } from "../support/context.ts";
import { serviceEnv, startService } from "../support/service_process.ts";
import { waitFor } from "../support/wait.ts";

const EVENTS = 200;

Deno.test("kill -9 with 200 deliveries pending, restart: every event arrives at least once with a stable webhook-id", async () => {
  const dir = await Deno.makeTempDir({ prefix: "webhooks_kill_" });
  const idp = await createIdp();
  const env = serviceEnv(idp, dir, { LOG_LEVEL: "warn" });
  let base = ""; // the port is known once the service listens

  // Phase 1 the receiver hangs (requests arrive, no answer); phase 2 it answers 200.
  let hanging = true;
  let release!: () => void;
  const released = new Promise<void>((r) => (release = r));
  const arrivals: { headerId: string; bodyId: string; acked: boolean; verified: boolean }[] = [];
  let secret = "";
  const rx = serveLocal(async (req) => {
    const body = await req.text();
    const headers = Object.fromEntries(req.headers);
    const acked = !hanging;
    let verified = false;
    try {
      new Webhook(secret).verify(body, headers);
      verified = true;
    } catch { /* recorded as unverified */ }
    arrivals.push({
      headerId: headers["webhook-id"]!,
      bodyId: JSON.parse(body).id,
      acked,
      verified,
    });
    if (!acked) await released;
    return new Response(null, { status: acked ? 200 : 503 });
  });

  const token = await signToken(idp, { orgs: { "org-kill": ["owner"] } });
  const auth = { authorization: `Bearer ${token}`, "content-type": "application/json" };
  let svc = await startService(env);
  base = svc.base;
  const eventIds: string[] = [];
  try {
    const reg = await fetch(`${base}/notification/register/webhook-endpoint`, {
      method: "POST",
      headers: auth,
      body: JSON.stringify({ orgId: "org-kill", notificationWebhook: `${rx.url}/hook` }),
    });
    assert.equal(reg.status, 201);
    secret = (await reg.json()).data.secret;

    for (let i = 0; i < EVENTS; i += 20) {
      const batch = await Promise.all(Array.from({ length: 20 }, async () => {
        const r = await fetch(`${base}/notification/webhook-endpoint/test`, {
          method: "POST",
          headers: auth,
          body: JSON.stringify({ orgId: "org-kill" }),
        });
        assert.equal(r.status, 202);
        return (await r.json()).data.eventId as string;
      }));
      eventIds.push(...batch);
    }
    assert.equal(new Set(eventIds).size, EVENTS);
    // Deliveries are in flight against the hanging receiver: kill the process mid-flight.
    await waitFor("deliveries in flight", () => arrivals.length >= 8, 10_000);
    const inFlight = arrivals.length;
    const status = await svc.kill();
    assert.equal(status.signal, "SIGKILL");

    hanging = false;
    svc = await startService(env);
    const acked = () => new Set(arrivals.filter((a) => a.acked).map((a) => a.bodyId));
    await waitFor(`all ${EVENTS} events acknowledged`, () => acked().size === EVENTS, 20_000);

    for (const id of eventIds) assert.ok(acked().has(id), `event ${id} was delivered`);
    for (const a of arrivals) assert.equal(a.headerId, a.bodyId, "webhook-id is the event id");
    for (const a of arrivals.filter((x) => x.acked)) assert.ok(a.verified, "signature verifies");
    const perId = new Map<string, number>();
    for (const a of arrivals) perId.set(a.bodyId, (perId.get(a.bodyId) ?? 0) + 1);
    const duplicated = [...perId.values()].filter((n) => n > 1).length;
    assert.ok(duplicated >= 1, "the deliveries in flight at the kill were sent again");
    console.log(
      `kill test: ${inFlight} in flight at SIGKILL, ${arrivals.length} arrivals, ${duplicated} events twice`,
    );

    // The delivery log agrees: every delivery succeeded.
    const log = await fetch(`${base}/notification/deliveries?orgId=org-kill&limit=200`, {
      headers: auth,
    });
    const page = await log.json();
    assert.equal(page.data.length, EVENTS);
    assert.ok(page.data.every((d: { status: string }) => d.status === "succeeded"));
  } finally {
    release();
    await svc.kill();
    await rx.close();
    await Deno.remove(dir, { recursive: true }).catch(() => {});
  }
});
