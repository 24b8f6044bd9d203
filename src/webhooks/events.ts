/** The event catalogue (CONTRACT.md "Notifications"). */
export const EVENT_TYPES = [
  "credential.state_changed",
  "credential.status_changed",
  "connection.state_changed",
  "presentation.state_changed",
  "proof.state_changed",
  "agent.configured",
  "webhook.test",
  "message.delivery_failed",
] as const;

/** One of the catalogue's event types. */
export type EventType = typeof EVENT_TYPES[number];

/** Every event: `{id, type, timestamp, orgId, data}`; `id` is stable across delivery retries. */
export interface WebhookEvent<D = Record<string, unknown>> {
  id: string;
  type: EventType;
  /** ISO 8601 UTC. */
  timestamp: string;
  orgId: string;
  data: D;
}

/** Outbox kind of webhook deliveries. */
export const WEBHOOK_KIND = "webhook";
