/**
 * The DIDComm feature: routes, outbox handlers (outbound delivery, inbound processing) and the
 * message handlers of connections, DID rotation and trust ping.
 *
 * @module
 */
import type { AppDeps } from "../deps.ts";
import {
  didRotationHandler,
  registerDidRotateHandlers,
  ROTATE_KIND,
} from "./connections/did_rotate.ts";
import { registerConnectionHandlers } from "./connections/service.ts";
import { INBOUND_KIND, inboundProcessingHandler } from "./inbound.ts";
import { DIDCOMM_KIND, didcommDeliveryHandler } from "./outbound.ts";
import { didcommRoutes } from "./routes.ts";
import { registerTrustPingHandlers } from "./trust_ping.ts";

/** The feature router (mount with the other features). */
export const didcommFeature = didcommRoutes;

/** Registers the outbox handlers and the built-in message handlers. Call once from setupFeatures. */
export function setupDidcomm(deps: AppDeps): Promise<void> {
  deps.dispatcher.register(DIDCOMM_KIND, didcommDeliveryHandler(deps));
  deps.dispatcher.register(INBOUND_KIND, inboundProcessingHandler(deps));
  deps.dispatcher.register(ROTATE_KIND, didRotationHandler(deps));
  registerConnectionHandlers();
  registerDidRotateHandlers();
  registerTrustPingHandlers();
  return Promise.resolve();
}
