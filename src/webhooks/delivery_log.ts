import type { OutboxAttempt, OutboxMessage } from "../outbox/mod.ts";
import { keys, listPage, type Page } from "../kv/mod.ts";
import type { WebhookEvent } from "./events.ts";
import { WEBHOOK_KIND } from "./events.ts";

/** Delivery status as the API shows it. `failed`: the last attempt failed, a retry is due. */
export const DELIVERY_STATUSES = ["pending", "failed", "succeeded", "dead"] as const;
/** One of `DELIVERY_STATUSES`. */
export type DeliveryStatus = typeof DELIVERY_STATUSES[number];

/** One webhook delivery with every attempt. */
export interface DeliveryView {
  id: string;
  eventId: string;
  eventType: string;
  orgId: string;
  status: DeliveryStatus;
  /** Succeeded without a request: no endpoint was registered, or it was disabled. */
  skipped: boolean;
  attempts: OutboxAttempt[];
  attemptCount: number;
  createdAt: string;
  lastAttemptAt: string | null;
  lastStatus: number | null;
  lastError: string | null;
  nextAttemptAt: string | null;
  completedAt: string | null;
}

/** Maps an outbox message and its attempts to the API view. */
export function deliveryView(
  msg: OutboxMessage<WebhookEvent>,
  attempts: OutboxAttempt[],
): DeliveryView {
  const status: DeliveryStatus = msg.status === "pending"
    ? (msg.attempts > 0 ? "failed" : "pending")
    : msg.status;
  const last = attempts[attempts.length - 1];
  return {
    id: msg.id,
    eventId: msg.payload.id,
    eventType: msg.payload.type,
    orgId: msg.orgId ?? msg.payload.orgId,
    status,
    skipped: msg.status === "succeeded" && last !== undefined && last.ok &&
      last.status === undefined,
    attempts,
    attemptCount: msg.attempts,
    createdAt: msg.createdAt,
    lastAttemptAt: msg.lastAttemptAt ?? null,
    lastStatus: msg.lastStatus ?? null,
    lastError: msg.lastError ?? null,
    nextAttemptAt: msg.status === "pending" ? new Date(msg.dueAt).toISOString() : null,
    completedAt: msg.completedAt ?? null,
  };
}

/** Reads the attempts of a message, oldest first. */
export async function readAttempts(kv: Deno.Kv, id: string): Promise<OutboxAttempt[]> {
  const out: OutboxAttempt[] = [];
  for await (const a of kv.list<OutboxAttempt>({ prefix: keys.outboxAttemptPrefix(id) })) {
    out.push(a.value);
  }
  return out;
}

/**
 * One page of an org's webhook deliveries, newest first, optionally only those with `status`.
 * The cursor is the KV list cursor of the org's delivery index.
 */
export async function listDeliveries(
  kv: Deno.Kv,
  orgId: string,
  opts: { limit: number; cursor?: string; status?: DeliveryStatus },
): Promise<Page<DeliveryView>> {
  return await listPage<string, DeliveryView>(kv, keys.outboxByOrgPrefix(orgId, WEBHOOK_KIND), {
    limit: opts.limit,
    cursor: opts.cursor,
    batchSize: Math.min(opts.limit * 2, 500),
    map: async (id) => {
      const m = await kv.get<OutboxMessage<WebhookEvent>>(keys.outboxMessage(id));
      if (!m.value) return undefined;
      const view = deliveryView(m.value, await readAttempts(kv, m.value.id));
      return opts.status && view.status !== opts.status ? undefined : view;
    },
  });
}
