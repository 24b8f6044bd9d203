/**
 * Scale-out over KV Connect (CONTRACT "Running"): two real service processes on one real `denokv`
 * server (`KV_PATH=http://127.0.0.1:<port>`, `DENO_KV_ACCESS_TOKEN`), the way to run many
 * processes on many machines besides Deno Deploy. The scenarios of `tests/support/scale_out.ts`
 * (the same the one-file tests run), and the server itself restarted mid-traffic.
 *
 * Not part of `deno task test` (its first run builds denokv with cargo, minutes): `deno task
 * test:kv-connect` runs every `tests/kv_connect/*_suite.ts`, and `.ci/run` runs it after the main
 * suite. A new suite over KV Connect (backup and restore, …) is a file beside this one that opens
 * its pair with {@link onDenoKv}.
 */
import assert from "node:assert/strict";
import {
  concurrentWrites,
  inFlight,
  killTakeover,
  type Pair,
  pair,
  receiver,
  registerReceiver,
  sendTestEvent,
  tokenAcrossProcesses,
} from "../support/scale_out.ts";
import type { ServiceProcess } from "../support/service_process.ts";
import { waitFor } from "../support/wait.ts";
import { denokvBinary, type DenoKvServer, startDenoKv } from "./denokv.ts";

const binary = await denokvBinary();

/** Runs `scenario` on two service processes sharing a fresh denokv server. */
export async function onDenoKv(
  scenario: (p: Pair, server: DenoKvServer) => Promise<void>,
  extra?: Record<string, string>,
): Promise<void> {
  const dir = await Deno.makeTempDir({ prefix: "denokv_" });
  const server = await startDenoKv(binary, dir);
  try {
    const p = await pair(server.backend, extra);
    try {
      await scenario(p, server);
    } finally {
      await p.close();
    }
  } catch (err) {
    throw new Error(`${err instanceof Error ? err.message : err}\ndenokv: ${server.output()}`, {
      cause: err,
    });
  } finally {
    await server.stop("SIGKILL");
    await Deno.remove(dir, { recursive: true });
  }
}

Deno.test("KV Connect: two processes on one denokv: 400 concurrent API writes, 0 5xx, each readable from the other", async () => {
  await onDenoKv((p) => concurrentWrites(p, "denokv"));
});

Deno.test("KV Connect: every webhook test event is delivered; the work a kill -9 cut off in one process is delivered by the other", async () => {
  await onDenoKv((p) => killTakeover(p, "denokv"), { OUTBOX_LEASE_SECONDS: "2" });
});

Deno.test("KV Connect: an agent token minted by one process is accepted by the other", async () => {
  await onDenoKv(tokenAcrossProcesses);
});

/** `GET /health/ready` of `svc`: its status (0: no answer within 10 s). */
async function readiness(svc: ServiceProcess): Promise<number> {
  try {
    const res = await fetch(`${svc.base}/health/ready`, { signal: AbortSignal.timeout(10_000) });
    await res.body?.cancel();
    return res.status;
  } catch {
    return 0;
  }
}

Deno.test("KV Connect: the denokv server restarted mid-traffic: readiness 503 while it is away, every accepted event delivered once it is back, both processes recover", async () => {
  await onDenoKv(async (p, server) => {
    const rx = receiver();
    try {
      const headers = await registerReceiver(p, p.a, "org-r", rx);
      // 80 test events through both processes, 4 in flight; the server goes away after 20.
      let answered = 0;
      const sends = inFlight(
        4,
        Array.from({ length: 80 }, (_, i) => async () => {
          const sent = await sendTestEvent(i % 2 === 0 ? p.a : p.b, headers, "org-r");
          answered++;
          return sent;
        }),
      );
      await waitFor("traffic under way", () => answered >= 20);
      await server.stop();
      const atStop = answered;
      await waitFor(
        "both processes to answer readiness 503",
        async () => (await readiness(p.a)) === 503 && (await readiness(p.b)) === 503,
      );
      // While it is away, requests wait for it (KV Connect retries) rather than fail.
      const whileAway = answered;
      await server.start();
      await waitFor(
        "both processes ready again",
        async () => (await readiness(p.a)) === 200 && (await readiness(p.b)) === 200,
      );
      const results = await sends;
      console.log(
        `denokv restart: 80 events, server stopped after ${atStop} answers ` +
          `(${whileAway} by the time both answered 503), ` +
          `${results.filter((r) => r.status === 202).length} accepted`,
      );
      assert.deepEqual(results.filter((r) => r.status !== 202), [], "every request accepted");
      const ids = results.map((r) => r.eventId!);
      await waitFor(
        "every accepted event delivered",
        () => ids.every((id) => rx.got.some((g) => g.headerId === id)),
        60_000,
      );
      // Both processes work as before: a new event through each is delivered.
      for (const svc of [p.a, p.b]) {
        const after = await sendTestEvent(svc, headers, "org-r");
        assert.equal(after.status, 202);
        await waitFor(
          "the event after the restart",
          () => rx.got.some((g) => g.headerId === after.eventId),
        );
      }
      assert.equal(new Set(rx.got.map((g) => g.headerId)).size, 82, "82 distinct events");
      for (const g of rx.got) assert.equal(g.headerId, g.bodyId, "webhook-id is the event id");
    } finally {
      await rx.close();
    }
  });
});
