/**
 * The credential exchange, holder side (Issue Credential 2.0 with JSON-LD credentials): the
 * `CredentialHolder` service, its DIDComm message handlers, the auto-accept policy in action and
 * the routes (accept-credential, accept-offer, decline-offer, records). The credentials it brings
 * are stored by `credentials/`, whose JSON-LD stack verifies them.
 *
 * @module
 */
export { type AcceptOfferOptions, CredentialHolder, type HolderDeps } from "./holder.ts";
export { issueCredentialRoutes, type IssueCredentialRoutesDeps } from "./routes.ts";
export { AUTO_ACCEPT_KIND, type AutoAcceptPayload, holderHandlers } from "./inbound.ts";
export { autoAcceptHandler } from "./auto_accept.ts";
export type { CredentialExchangeRecord, CredentialState } from "./record.ts";
