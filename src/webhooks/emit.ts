import { timeId } from "../kv/mod.ts";
import { enqueue } from "../outbox/mod.ts";
import { type EventType, WEBHOOK_KIND, type WebhookEvent } from "./events.ts";

/**
 * Adds an event's delivery to `op`, the same atomic operation as the change that caused it.
 * The event is delivered to the org's webhook endpoint as registered at delivery time; with no
 * endpoint the delivery is recorded as skipped. Wake the dispatcher after the commit.
 */
export function emit<D extends Record<string, unknown>>(
  op: Deno.AtomicOperation,
  orgId: string,
  type: EventType,
  data: D,
  now = Date.now(),
): WebhookEvent<D> {
  const id = `evt_${timeId(now)}`;
  const event: WebhookEvent<D> = { id, type, timestamp: new Date(now).toISOString(), orgId, data };
  enqueue(op, { kind: WEBHOOK_KIND, orgId, payload: event, id }, now);
  return event;
}
