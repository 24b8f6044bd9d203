/**
 * Records of the OpenID4VP holder: the presentation request record the API shows, and its stored
 * form (what answering the verifier needs: nonce, response URI, state, encryption key, the DCQL
 * query).
 *
 * @module
 */

/** States of a presentation request record. */
export type PresentationState = "request-received" | "done" | "declined" | "failed";

/** Every state, in the order a request goes through them. */
export const PRESENTATION_STATES: readonly PresentationState[] = [
  "request-received",
  "done",
  "declined",
  "failed",
];

/** A claim path as DCQL writes it, made concrete: object keys and array indexes. */
export type ClaimPath = (string | number)[];

/** One stored credential that can answer a credential query, and what answering discloses. */
export interface QueryMatch {
  /** The stored credential's id (`/sd-jwt-credentials/{id}` or `/w3c-credentials/{id}`). */
  credentialId: string;
  /** `dc+sd-jwt` (also for `vc+sd-jwt` queries) or `ldp_vc`. */
  format: "dc+sd-jwt" | "ldp_vc";
  /**
   * The claim paths the answer would disclose. For an SD-JWT VC exactly the requested ones; a
   * JSON-LD credential cannot disclose selectively, so every claim of its subject.
   */
  disclosedClaims: ClaimPath[];
}

/** One credential query of the request's DCQL query and the org's credentials that match it. */
export interface QueryMatches {
  /** The credential query id. */
  id: string;
  /** Whether an answer must include it (DCQL `credential_sets`; without them every query is). */
  required: boolean;
  /** Newest first; empty when no stored credential satisfies the query. */
  matches: QueryMatch[];
}

/** The verifier as the request names it. */
export interface VerifierInfo {
  /** The whole `client_id`, prefix included. */
  clientId: string;
  /** `redirect_uri`, `decentralized_identifier` or `x509_san_dns`. */
  prefix: string;
  /** `client_name` from `client_metadata`, when given. */
  name?: string;
}

/** A presentation request record as the API shows it. */
export interface PresentationRequestRecord {
  id: string;
  orgId: string;
  state: PresentationState;
  verifier: VerifierInfo;
  responseMode: "direct_post" | "direct_post.jwt";
  /** Where the answer goes. */
  responseUri: string;
  queries: QueryMatches[];
  /** What the verifier answered a successful presentation with (`redirect_uri`), if anything. */
  redirectUri?: string;
  /** Which stored credential answered which query, once `done`. */
  presented?: { queryId: string; credentialId: string }[];
  errorMessage?: string;
  /** When a signed request expires (its `exp`), if it says. */
  expiresAt?: string;
  createdAt: string;
  updatedAt: string;
}

/** What answering the verifier needs besides the record. */
export interface StoredRequestParams {
  nonce: string;
  state?: string;
  /** The DCQL query as the verifier sent it. */
  dcqlQuery: Record<string, unknown>;
  /** `client_metadata` as sent (encryption keys, `encrypted_response_enc_values_supported`). */
  clientMetadata?: Record<string, unknown>;
  /** The audience of key binding JWTs and presentations: the client identifier. */
  audience: string;
}

/** The stored form of a presentation request. */
export interface StoredPresentationRequest {
  record: PresentationRequestRecord;
  params: StoredRequestParams;
}
