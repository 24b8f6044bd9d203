/**
 * OpenID4VP holder: presentation requests from verifiers (OpenID4VP 1.0, DCQL), checked and
 * answered with exactly the requested claims of the org's SD-JWT VCs and JSON-LD credentials, and
 * the routes.
 *
 * @module
 */
export { Oid4vpHolder, type Oid4vpHolderDeps } from "./holder.ts";
export { type Oid4vpRoutesDeps, openid4vpRoutes } from "./routes.ts";
export { pemCertificates, TrustAnchors, trustAnchorsFrom } from "./x509.ts";
export type { PresentationRequestRecord, PresentationState } from "./record.ts";
