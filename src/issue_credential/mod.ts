/**
 * The credential exchange, holder side (Issue Credential 2.0 with JSON-LD credentials): the
 * `CredentialHolder` service, its DIDComm message handlers, the auto-accept policy in action and
 * the routes (accept-credential, accept-offer, decline-offer, records, stored credentials); and
 * what presentations use of it: reading format attachments, listing the org's stored credentials
 * (`CredentialHolder.listW3c`). The JSON-LD stack is `credentials/`'s.
 *
 * @module
 */
export {
  type AcceptOfferOptions,
  CredentialHolder,
  type HolderDeps,
  type HolderDidcomm,
} from "./holder.ts";
export { credentialRoutes, type CredentialRoutesDeps } from "./routes.ts";
export {
  AUTO_ACCEPT_KIND,
  type AutoAcceptPayload,
  holderHandlers,
  type HolderMessageHandler,
  type InboundMessage,
  registerHolderHandlers,
} from "./inbound.ts";
export { AUTO_ACCEPT_SCHEDULE, autoAcceptHandler } from "./auto_accept.ts";
export type { CredentialExchangeRecord, CredentialState } from "./record.ts";
export type { W3cCredentialView } from "./store.ts";
export { W3cCredentialSchema } from "./schemas.ts";
export { findFormatAttachment } from "./jsonld_format.ts";
export { formatAttachment } from "./messages.ts";
export type { W3cCredentialRecord } from "./store.ts";
