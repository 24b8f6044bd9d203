/**
 * The event catalogue as OpenAPI 3.1 `webhooks`: one entry per event type, the request the
 * service sends to an org's endpoint (Standard Webhooks headers, the event envelope with that
 * type's `data`) and what the service makes of the answer.
 *
 * @module
 */
import { type RouteConfig, z } from "@hono/zod-openapi";
import { EVENT_CATALOGUE, type EventType } from "./events.ts";

const headers = z.object({
  "webhook-id": z.string().openapi({
    description: "The event's `id`: the same on every retry; deduplicate by it.",
    example: "evt_0190f0a26b1e7c3d",
  }),
  "webhook-timestamp": z.string().openapi({
    description: "Unix seconds of this attempt.",
    example: "1735732800",
  }),
  "webhook-signature": z.string().openapi({
    description:
      "`v1,` + base64 HMAC-SHA256 of `{webhook-id}.{webhook-timestamp}.{body}` with the endpoint's secret (the `whsec_` prefix removed, the rest base64-decoded); during a secret rotation one entry per live secret, space-separated.",
  }),
});

/** `credential.state_changed` → `credentialStateChangedEvent`. */
function operationId(type: string): string {
  const words = type.split(/[._]/);
  return words.map((w, i) => i === 0 ? w : w[0]!.toUpperCase() + w.slice(1)).join("") + "Event";
}

/** The `webhooks` entry of one event type. */
function eventWebhook(type: EventType): RouteConfig {
  const { summary, data } = EVENT_CATALOGUE[type];
  const name = operationId(type).replace(/^./, (c) => c.toUpperCase());
  const envelope = z.object({
    id: z.string().openapi({ description: "Stable across delivery retries." }),
    type: z.literal(type),
    timestamp: z.string().openapi({ format: "date-time", description: "ISO 8601 UTC." }),
    orgId: z.string(),
    data,
  }).openapi(name);
  return {
    method: "post",
    path: type,
    operationId: operationId(type),
    summary,
    tags: ["Events"],
    security: [],
    request: {
      headers,
      body: { required: true, content: { "application/json": { schema: envelope } } },
    },
    responses: {
      "2XX": { description: "Delivered." },
      "410": { description: "The endpoint is disabled until it is registered again." },
      default: {
        description:
          "Any other answer (redirects too) is a failure: retried after 5 s, 5 min, 30 min, 2 h, 5 h, 10 h, 10 h, then dead (visible in GET /notification/deliveries, re-sendable).",
      },
    },
  };
}

/** Every event type of the catalogue as a `webhooks` entry, in catalogue order. */
export function eventWebhooks(): RouteConfig[] {
  return (Object.keys(EVENT_CATALOGUE) as EventType[]).map(eventWebhook);
}
