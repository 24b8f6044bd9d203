/**
 * The notifications routes: webhook endpoint registration and management, the delivery log and
 * manual retry. Every route needs a bearer token (`app.ts` attaches bearer auth to
 * `/notification/*`) of an owner/admin of the named org.
 *
 * @module
 */
import { createRouter } from "../http/mod.ts";
import { deliveryRoutes } from "./delivery_routes.ts";
import { endpointRoutes } from "./endpoint_routes.ts";
import type { WebhookService } from "./service.ts";

/** What the webhook routes use. */
export interface WebhookRoutesDeps {
  webhooks: WebhookService;
}

/** The notifications feature router. */
export function webhookRoutes({ webhooks }: WebhookRoutesDeps) {
  const app = createRouter();
  app.route("/", endpointRoutes(webhooks));
  app.route("/", deliveryRoutes(webhooks));
  return app;
}
