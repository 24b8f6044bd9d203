/**
 * Webhook delivery throughput: 1,000 events through the real outbox, dispatcher loop, signing
 * and safe client to a real local receiver, on a KV file (like production's SQLite).
 *
 *   deno run -A tests/bench/webhook_delivery_bench.ts [events=1000] [orgs=1] [ratePerSecond=0]
 *
 * `ratePerSecond` 0 commits every event at once (a burst: measures throughput, and latency is
 * mostly queueing); a rate paces the commits (latency at that offered load). Prints deliveries
 * per second (first commit → last receipt) and the p50/p99 from commit to receipt.
 * Under `deno bench` it runs the burst once.
 */
import { createTestContext, serveLocal } from "../support/context.ts";
import { emit } from "../../src/webhooks/mod.ts";

/** One measured run. */
export interface WebhookBenchResult {
  events: number;
  orgs: number;
  seconds: number;
  perSecond: number;
  p50Ms: number;
  p99Ms: number;
  maxMs: number;
}

/** Delivers `events` events for `orgs` orgs; `rate` 0 = burst. */
export async function runWebhookBench(
  events = 1000,
  orgs = 1,
  rate = 0,
): Promise<WebhookBenchResult> {
  const dir = await Deno.makeTempDir();
  const committed = new Map<string, number>();
  const latencies: number[] = [];
  let received = 0;
  let allIn!: () => void;
  const done = new Promise<void>((r) => (allIn = r));
  const rx = serveLocal((req) => {
    const at = performance.now();
    const id = req.headers.get("webhook-id")!;
    const c = committed.get(id);
    if (c !== undefined) {
      committed.delete(id);
      latencies.push(at - c);
      if (++received === events) allIn();
    }
    return new Response(null, { status: 204 });
  });
  const ctx = await createTestContext({
    kvPath: `${dir}/kv.sqlite3`,
  });
  try {
    const orgIds = Array.from({ length: orgs }, (_, i) => `bench-org-${i}`);
    for (const orgId of orgIds) {
      const token = await ctx.token({ [orgId]: ["owner"] });
      const res = await ctx.call("POST", "/notification/register/webhook-endpoint", {
        token,
        body: { orgId, notificationWebhook: `${rx.url}/hook` },
      });
      if (res.status !== 201) throw new Error(`register: ${res.status} ${await res.text()}`);
    }
    ctx.services.dispatcher.start();
    const t0 = performance.now();
    for (let i = 0; i < events; i++) {
      if (rate > 0) {
        const wait = t0 + (i * 1000) / rate - performance.now();
        if (wait > 0) await new Promise((r) => setTimeout(r, wait));
      }
      const op = ctx.kv.atomic();
      const ev = emit(op, orgIds[i % orgs]!, "webhook.test", { i });
      const res = await op.commit();
      if (!res.ok) throw new Error("commit failed");
      committed.set(ev.id, performance.now());
      ctx.services.dispatcher.wake();
    }
    const timeout = setTimeout(() => allIn(), 120_000);
    await done;
    clearTimeout(timeout);
    const seconds = (performance.now() - t0) / 1000;
    latencies.sort((a, b) => a - b);
    const pct = (p: number) =>
      latencies[Math.min(latencies.length - 1, Math.floor(p * latencies.length))] ?? NaN;
    return {
      events: received,
      orgs,
      seconds: round(seconds),
      perSecond: round(received / seconds),
      p50Ms: round(pct(0.5)),
      p99Ms: round(pct(0.99)),
      maxMs: round(latencies[latencies.length - 1] ?? NaN),
    };
  } finally {
    await ctx.close();
    await rx.close();
    await Deno.remove(dir, { recursive: true });
  }
}

function round(n: number): number {
  return Math.round(n * 10) / 10;
}

if (import.meta.main) {
  const [events, orgs, rate] = Deno.args.map(Number);
  const r = await runWebhookBench(events || 1000, orgs || 1, rate || 0);
  console.log(JSON.stringify(r));
} else {
  Deno.bench("1,000 webhook deliveries to a local receiver (burst, one org)", {
    n: 1,
    warmup: 0,
  }, async () => {
    console.log(JSON.stringify(await runWebhookBench(1000, 1, 0)));
  });
}
