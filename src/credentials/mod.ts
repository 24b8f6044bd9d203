/**
 * The credential exchange, holder side (Issue Credential 2.0 with JSON-LD credentials): the
 * `CredentialHolder` service, its DIDComm message handlers, the auto-accept policy in action and
 * the routes (accept-credential, accept-offer, decline-offer, records, stored credentials); and
 * what presentations use of it: reading format attachments, listing the org's stored credentials
 * (`CredentialHolder.listW3c`), signing a presentation with the same JSON-LD stack.
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
export { createDocumentLoader } from "./jsonld/document_loader.ts";
export type { W3cCredentialView } from "./store.ts";
export { W3cCredentialSchema } from "./schemas.ts";
export type { DocumentLoader, LdDidDocument, RemoteContexts, ResolveDid } from "./jsonld/types.ts";
export { ContextStore, type ContextStoreDeps } from "./jsonld/context_store.ts";
export {
  verifyCredential,
  type VerifyCredentialOptions,
  type VerifyCredentialResult,
} from "./jsonld/verify.ts";
export { findFormatAttachment } from "./jsonld_format.ts";
export { formatAttachment } from "./messages.ts";
export {
  onPresentationContext,
  presentationContext,
  signPresentation,
  type SignPresentationOptions,
} from "./jsonld/sign_presentation.ts";
export { type LdProofSuiteName, presentationSuite, SIGNABLE_PROOF_TYPES } from "./jsonld/suite.ts";
export { addW3cCredential, newW3cRecord, type W3cCredentialRecord } from "./store.ts";
