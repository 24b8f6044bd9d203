/**
 * OpenID4VCI holder: credential offers from OpenID issuers (pre-authorized code flow, 1.0 and
 * drafts 11–15, on `@openid4vc/openid4vci` and `@openid4vc/oauth2`), EdDSA or ES256 proofs,
 * batches, deferred issuance polled through the outbox, SD-JWT VCs verified before they are
 * stored (in `credentials/`), and the routes.
 *
 * @module
 */
export { Oid4vcHolder, type Oid4vcHolderDeps } from "./holder.ts";
export { DEFERRED_KIND, type DeferredDeps, deferredHandler } from "./deferred.ts";
export { type Oid4vcRoutesDeps, openid4vcRoutes } from "./routes.ts";
export { type OfferRecord, offerResealable, type OfferState } from "./record.ts";
