import { authMiddleware } from "../app.ts";
import type { AppDeps } from "../deps.ts";
import { createRouter } from "../http/router.ts";
import { createWebhookHandler, type WebhookHandlerOptions } from "./delivery_handler.ts";
import { deliveryRoutes } from "./delivery_routes.ts";
import { endpointRoutes } from "./endpoint_routes.ts";
import { WEBHOOK_KIND } from "./events.ts";

/**
 * The notifications feature: webhook endpoint registration and management, the delivery log
 * and manual retry. Every route needs a bearer token of an owner/admin of the named org.
 */
export function webhooksFeature(deps: AppDeps) {
  const app = createRouter();
  app.use("/notification/*", authMiddleware(deps));
  app.route("/", endpointRoutes(deps));
  app.route("/", deliveryRoutes(deps));
  return app;
}

/** Registers the outbox handler of webhook deliveries. Called from `setupFeatures`. */
export function setupWebhooks(deps: AppDeps, opts: WebhookHandlerOptions = {}): Promise<void> {
  deps.dispatcher.register(WEBHOOK_KIND, createWebhookHandler(deps, opts));
  return Promise.resolve();
}
