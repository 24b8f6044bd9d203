/**
 * Notifications: the event catalogue, `emit()` (an event rides the commit of the change that
 * caused it), each org's webhook endpoint (`WebhookService`), signed delivery through the outbox
 * (`createWebhookHandler`) and the routes.
 *
 * @module
 */
export { emit } from "./emit.ts";
export {
  EVENT_CATALOGUE,
  EVENT_TYPES,
  type EventType,
  WEBHOOK_KIND,
  type WebhookEvent,
} from "./events.ts";
export { eventWebhooks } from "./event_docs.ts";
export { type Registration, WebhookService, type WebhookServiceDeps } from "./service.ts";
export {
  createWebhookHandler,
  parseRetryAfter,
  WEBHOOK_SCHEDULE,
  WEBHOOK_TIMEOUT_MS,
  type WebhookHandlerDeps,
  type WebhookHandlerOptions,
} from "./delivery_handler.ts";
export { webhookRoutes, type WebhookRoutesDeps } from "./routes.ts";
export { webhookSecretsResealable } from "./endpoint.ts";
export { type DeliveryStatus, type DeliveryView } from "./delivery_log.ts";
export { signWebhook } from "./signature.ts";
