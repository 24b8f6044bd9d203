/**
 * Draining the outbox in tests: the way to know that "nothing more will arrive" without sleeping
 * a fixed time. Every pending outbox message (due, leased or scheduled for a retry) has a pointer
 * under `keys.outboxDuePrefix()`; when none is left, every message was delivered or dead-lettered,
 * and every receiver answered (a delivery ends when its HTTP request does).
 */
import { keys } from "../../src/kv/mod.ts";
import type { OutboxMessage } from "../../src/outbox/mod.ts";
import { waitFor } from "./wait.ts";

/** The outbox messages still pending in `kv` (due now, leased, or waiting for a retry). */
export async function pendingOutbox(kv: Deno.Kv): Promise<number> {
  let n = 0;
  for await (const _ of kv.list({ prefix: keys.outboxDuePrefix() })) n++;
  return n;
}

/**
 * Waits until the outbox of `kv` is empty (a running dispatcher, in this process or another one
 * on the same KV file, works it off). Throws after `timeoutMs`, naming how many are left.
 */
export async function drainOutbox(kv: Deno.Kv, timeoutMs = 15_000): Promise<void> {
  await waitFor("the outbox to drain", async () => (await pendingOutbox(kv)) === 0, timeoutMs)
    .catch(async (err) => {
      throw new Error(`${err.message} (${await pendingOutbox(kv)} messages pending)`);
    });
}

/** The `data` of the webhook events of `type` about record `id` queued in `kv`, in order. */
export async function recordEvents(
  kv: Deno.Kv,
  type: string,
  id: string,
): Promise<Record<string, unknown>[]> {
  const out: Record<string, unknown>[] = [];
  for await (const e of kv.list<OutboxMessage>({ prefix: ["outbox"] })) {
    const ev = e.value.payload as { type?: string; data?: Record<string, unknown> };
    if (e.value.kind === "webhook" && ev.type === type && ev.data?.id === id) out.push(ev.data);
  }
  return out;
}
