/**
 * Credential status (CONTRACT.md "Credentials from real issuers: status and contexts"): Bitstring
 * Status List and Status List 2021 for JSON-LD credentials, the IETF Token Status List for SD-JWT
 * VCs. Lists are fetched through the outbound client, verified against the credential's issuer and
 * kept as long as they say. The features that store credentials call the {@link StatusService}:
 * `statusOf` on receipt and before a presentation, `record` in the commit that stores a credential,
 * `withStatuses` when they read them back; `check` and `cronTick` keep statuses current and emit
 * `credential.status_changed`.
 *
 * @module
 */
export type {
  CredentialFormat,
  CredentialStatus,
  StatusState,
  StatusSubject,
  StatusTarget,
} from "./types.ts";
export { StatusChecker, type StatusCheckerDeps } from "./checker.ts";
export { issuerJwk, IssuerKeyError, type IssuerKeySources } from "./issuer_key.ts";
export { StatusService, type StatusServiceDeps, TICK_MS } from "./service.ts";
export { notChecked, withStatuses } from "./store.ts";
export { CredentialStatusSchema } from "./schemas.ts";
