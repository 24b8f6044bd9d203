/**
 * The org's stored credentials, whatever brought them: one {@link CredentialStore} (add, get,
 * list by format, what is presentable by one status rule, the status subject of each) over the
 * W3C and SD-JWT VC stores, their routes, and the format code: JSON-LD (`jsonld/`: contexts,
 * document loader, proofs, signed presentations) and SD-JWT VC (`sd_jwt/`: verification on
 * receipt, presentations with chosen disclosures). The protocols that bring and present
 * credentials use it; it uses none of them.
 *
 * @module
 */
export {
  CredentialStore,
  type CredentialStoreDeps,
  type CredentialView,
  MAX_PRESENTABLE_PER_FORMAT,
  presentableStatus,
  type PresentationCheck,
  type StoredCredential,
  subjectOf,
} from "./credential_store.ts";
export { storedCredentialRoutes, type StoredCredentialRoutesDeps } from "./credential_routes.ts";
export { SdJwtCredentialSchema, W3cCredentialSchema } from "./credential_schemas.ts";
export { newW3cRecord, type W3cCredentialRecord, type W3cCredentialView } from "./w3c_store.ts";
export type { SdJwtCredentialRecord, SdJwtCredentialView } from "./sd_jwt_store.ts";
export { ContextStore, type ContextStoreDeps } from "./jsonld/context_store.ts";
export { createDocumentLoader } from "./jsonld/document_loader.ts";
export { ldpTypes } from "./jsonld/ldp_types.ts";
export { type LdpSigningKey, presentLdp } from "./jsonld/present.ts";
export {
  onPresentationContext,
  signPresentation,
  type SignPresentationOptions,
} from "./jsonld/sign_presentation.ts";
export { type LdProofSuiteName, presentationSuite, SIGNABLE_PROOF_TYPES } from "./jsonld/suite.ts";
export {
  type DocumentLoader,
  type LdDidDocument,
  type RemoteContexts,
  type ResolveDid,
  resolveDidWith,
} from "./jsonld/types.ts";
export {
  ldVerifier,
  verifyCredential,
  type VerifyCredentialOptions,
  type VerifyCredentialResult,
} from "./jsonld/verify.ts";
export { type KbSigner, presentSdJwt, type SdJwtLibs } from "./sd_jwt/present.ts";
export {
  CredentialRejected,
  NON_DISCLOSABLE,
  type SdJwtVerifyContext,
  type VerifiedSdJwt,
  verifySdJwtVc,
} from "./sd_jwt/verify.ts";
