/**
 * Scale-out on one machine: two real service processes (`src/main.ts`) share one KV file, the
 * same SECRETS_KEY and PUBLIC_URL (as instances behind one address do). CONTRACT "Running": no
 * request fails and no message is lost or sent under two ids because the other process writes at
 * the same time or dies. The scenarios are `tests/support/scale_out.ts`'s; `deno task
 * test:kv-connect` runs them over KV Connect against a real denokv server.
 */
import {
  concurrentWrites,
  fileBackend,
  killTakeover,
  type Pair,
  pair,
  tokenAcrossProcesses,
} from "../support/scale_out.ts";

/** Runs `scenario` on two processes sharing a fresh KV file. */
async function onOneFile(scenario: (p: Pair) => Promise<void>, extra?: Record<string, string>) {
  const dir = await Deno.makeTempDir({ prefix: "two_procs_kv_" });
  const p = await pair(fileBackend(dir), extra);
  try {
    await scenario(p);
  } finally {
    await p.close();
    await Deno.remove(dir, { recursive: true });
  }
}

Deno.test("two processes on one KV file: 400 concurrent API writes, 0 5xx, each readable from the other", async () => {
  await onOneFile((p) => concurrentWrites(p, "two processes"));
});

Deno.test("two processes: every webhook test event is delivered; the work a kill -9 cut off in one is delivered by the other; duplicates share their webhook-id", async () => {
  await onOneFile((p) => killTakeover(p, "two processes"), { OUTBOX_LEASE_SECONDS: "2" });
});

Deno.test("two processes: an agent token minted by one is accepted by the other", async () => {
  await onOneFile(tokenAcrossProcesses);
});
