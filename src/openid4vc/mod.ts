/**
 * OpenID4VCI holder: credential offers from OpenID issuers (pre-authorized code flow, 1.0 and
 * drafts 13–15), SD-JWT VCs verified before they are stored, and the routes.
 *
 * @module
 */
export { Oid4vcHolder, type Oid4vcHolderDeps } from "./holder.ts";
export { type Oid4vcRoutesDeps, openid4vcRoutes } from "./routes.ts";
export type {
  OfferRecord,
  OfferState,
  SdJwtCredentialRecord,
  SdJwtCredentialView,
} from "./record.ts";
export { SdJwtCredentialSchema } from "./schemas.ts";
