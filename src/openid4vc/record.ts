/**
 * Records of the OpenID4VCI holder: the offer record the API shows, its stored form (with the
 * pre-authorized code sealed and the issuer profile), and stored SD-JWT VCs.
 *
 * @module
 */
import type { CredentialStatus } from "../status/mod.ts";
import type { IssuerProfile } from "./offer.ts";

/** States of an offer record. */
export type OfferState = "offer-received" | "done" | "declined" | "failed";

/** An offer record as the API shows it (never the pre-authorized code). */
export interface OfferRecord {
  id: string;
  orgId: string;
  state: OfferState;
  credentialIssuer: string;
  credentialConfigurationIds: string[];
  issuerName?: string;
  txCodeRequired: boolean;
  /** Stored SD-JWT credential ids, once `done`. */
  credentialIds: string[];
  errorMessage?: string;
  createdAt: string;
  updatedAt: string;
}

/** The stored form of an offer. */
export interface StoredOffer {
  record: OfferRecord;
  /** The pre-authorized code, sealed with SECRETS_KEY (AAD {@link offerCodeAad}). */
  sealedCode: string;
  /** Draft 11–13 issuers name the transaction code `user_pin`. */
  legacyUserPin: boolean;
  profile: IssuerProfile;
}

/** AAD binding a sealed pre-authorized code to its record. */
export const offerCodeAad = (orgId: string, id: string) => `oid4vc_offer:${orgId}:${id}`;

/** A stored SD-JWT VC as the API shows it. No private key material. */
export interface SdJwtCredentialRecord {
  id: string;
  orgId: string;
  offerId: string;
  vct: string;
  issuer: string;
  /** The issuer's plain claims and every disclosed claim, nested as in the payload. */
  claims: Record<string, unknown>;
  /** The SD-JWT as received. */
  compact: string;
  createdAt: string;
}

/** A stored SD-JWT VC as reads return it: with its top-level `status` (kept by `status/`). */
export type SdJwtCredentialView = SdJwtCredentialRecord & { status: CredentialStatus };
