/**
 * Records of the OpenID4VCI holder: the offer record the API shows, its stored form (the
 * pre-authorized code and a deferred issuance's access token sealed, the offer and the issuer
 * metadata the accept needs). The SD-JWT VCs an offer brings are `credentials/`'s.
 *
 * @module
 */
import type { CredentialOfferObject, IssuerMetadataResult } from "@openid4vc/openid4vci";
import type { Resealable } from "../crypto/mod.ts";
import { keys } from "../kv/mod.ts";
import type { Deferral } from "./issuance.ts";

/** States of an offer record. */
export type OfferState = "offer-received" | "deferred" | "done" | "declined" | "failed";

/** An offer record as the API shows it (never the pre-authorized code). */
export interface OfferRecord {
  id: string;
  orgId: string;
  state: OfferState;
  credentialIssuer: string;
  credentialConfigurationIds: string[];
  issuerName?: string;
  txCodeRequired: boolean;
  /**
   * Stored credential ids (while `deferred`, those that arrived already): SD-JWT VCs, and W3C
   * credentials for `ldp_vc` configurations (in the org's W3C store).
   */
  credentialIds: string[];
  errorMessage?: string;
  createdAt: string;
  updatedAt: string;
}

/** A deferred issuance being polled (OpenID4VCI `transaction_id`). */
export interface DeferredState {
  /** The access token the deferred credential endpoint takes, sealed (AAD {@link offerTokenAad}). */
  sealedAccessToken: string;
  /** The refresh token, when the issuer gave one, sealed (AAD {@link offerRefreshAad}). */
  sealedRefreshToken?: string;
  /** The authorization server that renews the access token. */
  authorizationServer?: string;
  /** Credentials still to come. */
  transactions: Deferral[];
  /** Seconds between polls (the issuer's `interval`, within bounds). */
  intervalS: number;
  /** The outbox message that polls next: any other poll message of this offer is stale. */
  jobId: string;
  /** When polling gives up (ms since epoch): the offer becomes `failed`. */
  until: number;
}

/** The stored form of an offer. */
export interface StoredOffer {
  record: OfferRecord;
  /** The pre-authorized code, sealed with SECRETS_KEY (AAD {@link offerCodeAad}). */
  sealedCode: string;
  /**
   * The offer without its code, and the issuer metadata cut to the offered configurations.
   * Absent on offers received before the OpenID4VCI libraries: their accept reads the metadata
   * again.
   */
  offer?: CredentialOfferObject;
  metadata?: IssuerMetadataResult;
  /** Set while `deferred`. */
  deferred?: DeferredState;
}

/** AAD binding a sealed pre-authorized code to its record. */
export const offerCodeAad = (orgId: string, id: string) => `oid4vc_offer:${orgId}:${id}`;
/** AAD binding a sealed access token (deferred issuance) to its record. */
export const offerTokenAad = (orgId: string, id: string) => `oid4vc_token:${orgId}:${id}`;

/** AAD binding a sealed refresh token (deferred issuance) to its record. */
export const offerRefreshAad = (orgId: string, id: string) => `oid4vc_refresh:${orgId}:${id}`;

/** For a SECRETS_KEY rotation: every offer's code and deferred access and refresh tokens. */
export const offerResealable: Resealable<StoredOffer> = {
  name: "OpenID4VCI offers",
  select: { prefix: keys.oid4vcOffersPrefix() },
  async reseal(value, box) {
    const { orgId, id } = value.record;
    const code = await box.reseal(value.sealedCode, offerCodeAad(orgId, id));
    const d = value.deferred;
    const token = d && await box.reseal(d.sealedAccessToken, offerTokenAad(orgId, id));
    const refresh = d?.sealedRefreshToken &&
      await box.reseal(d.sealedRefreshToken, offerRefreshAad(orgId, id));
    if (code === undefined && token === undefined && !refresh) return undefined;
    return {
      ...value,
      sealedCode: code ?? value.sealedCode,
      ...(d
        ? {
          deferred: {
            ...d,
            sealedAccessToken: token ?? d.sealedAccessToken,
            ...(refresh ? { sealedRefreshToken: refresh } : {}),
          },
        }
        : {}),
    };
  },
};
