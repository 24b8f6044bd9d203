/**
 * A readiness probe that is in flight when the shutdown signal comes (its KV read still pending)
 * reports "shutting down", not a dead dispatcher: draining stops the dispatcher on purpose.
 */
import assert from "node:assert/strict";
import type { Services } from "../../src/compose.ts";
import { AppError } from "../../src/base/errors.ts";
import { readinessCheck } from "../../src/boot/readiness.ts";

Deno.test("readiness: a signal during the probe's KV read gives 503 shutting down", async () => {
  let draining = false;
  let running = true;
  const services = {
    kv: {
      get: () => {
        // SIGTERM arrives while the read is pending: draining, then the dispatcher stops.
        draining = true;
        running = false;
        return Promise.resolve({ key: [], value: null, versionstamp: null });
      },
    },
    dispatcher: { state: () => ({ running, inflight: 0, lastScanAt: Date.now() }) },
    now: Date.now,
  } as unknown as Pick<Services, "kv" | "dispatcher" | "now">;
  const check = readinessCheck(services, { draining: () => draining, dispatcherExpected: true });
  await assert.rejects(check(), (err: unknown) => {
    assert.ok(err instanceof AppError);
    assert.equal(err.status, 503);
    assert.match(err.message, /shutting down/);
    return true;
  });
});
