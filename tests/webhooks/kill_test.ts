/**
 * Never lost: the real service (`src/main.ts`) runs as a subprocess on a KV file with 200
 * webhook deliveries pending, is killed with SIGKILL, and after a restart on the same file every
 * event reaches the receiver at least once, duplicates sharing their `webhook-id`.
 */
import assert from "node:assert/strict";
import { Webhook } from "standardwebhooks";
import {
  createIdp,
  serveLocal,
  signToken,
  TEST_AUDIENCE,
  TEST_ISSUER,
} from "../support/context.ts";

const ROOT = new URL("../../", import.meta.url);
const EVENTS = 200;

function freePort(): number {
  const l = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  const port = (l.addr as Deno.NetAddr).port;
  l.close();
  return port;
}

async function waitFor(what: string, cond: () => boolean, ms: number): Promise<void> {
  const end = Date.now() + ms;
  while (!cond()) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 25));
  }
}

async function startService(env: Record<string, string>, base: string) {
  const child = new Deno.Command(Deno.execPath(), {
    args: ["run", "--allow-all", "src/main.ts"],
    cwd: ROOT,
    env,
    stdout: "piped",
    stderr: "piped",
  }).spawn();
  const out: string[] = [];
  const drain = async (s: ReadableStream<Uint8Array>) => {
    for await (const chunk of s.pipeThrough(new TextDecoderStream())) out.push(chunk);
  };
  const drained = Promise.all([drain(child.stdout), drain(child.stderr)]);
  const deadline = Date.now() + 30_000;
  for (;;) {
    try {
      const r = await fetch(`${base}/health`);
      await r.body?.cancel();
      if (r.ok) break;
    } catch {
      // not listening yet
    }
    if (Date.now() > deadline) {
      child.kill("SIGKILL");
      await child.status;
      throw new Error(`service did not start: ${out.join("")}`);
    }
    await new Promise((r) => setTimeout(r, 50));
  }
  return { child, output: out, drained };
}

Deno.test("kill -9 with 200 deliveries pending, restart: every event arrives at least once with a stable webhook-id", async () => {
  const dir = await Deno.makeTempDir({ prefix: "webhooks_kill_" });
  const idp = await createIdp();
  const port = freePort();
  const base = `http://127.0.0.1:${port}`;
  const env = {
    PATH: Deno.env.get("PATH") ?? "",
    HOME: Deno.env.get("HOME") ?? dir,
    DENO_DIR: Deno.env.get("DENO_DIR") ?? "",
    PORT: String(port),
    HOSTNAME: "127.0.0.1",
    KV_PATH: `${dir}/kv.sqlite3`,
    SECRETS_KEY: btoa(String.fromCharCode(...crypto.getRandomValues(new Uint8Array(32)))),
    AUTH_PUBLIC_KEY: JSON.stringify(idp.publicJwk),
    AUTH_ISSUER: TEST_ISSUER,
    AUTH_AUDIENCE: TEST_AUDIENCE,
    PUBLIC_URL: base,
    OUTBOUND_REQUIRE_HTTPS: "false",
    OUTBOUND_ALLOW_PRIVATE: "true",
    OUTBOX_LEASE_SECONDS: "2",
    LOG_LEVEL: "warn",
  };

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
  let svc = await startService(env, base);
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
    svc.child.kill("SIGKILL");
    const status = await svc.child.status;
    assert.equal(status.signal, "SIGKILL");
    await svc.drained;

    hanging = false;
    svc = await startService(env, base);
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
    try {
      svc.child.kill("SIGKILL");
      await svc.child.status;
      await svc.drained;
    } catch { /* already gone */ }
    await rx.close();
    await Deno.remove(dir, { recursive: true }).catch(() => {});
  }
});
