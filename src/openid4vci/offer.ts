/**
 * Receiving a credential offer (OpenID4VCI 1.0 §4, and drafts 11–15) with `@openid4vc/openid4vci`:
 * the offer by value or by reference, the credential issuer's metadata and its authorization
 * server's, all through the safe outbound client. What the holder keeps of them for the accept:
 * the offer without its pre-authorized code (sealed apart), and the metadata cut down to the
 * offered configurations (no display, no claim descriptions), small enough for one KV value.
 *
 * @module
 */
import type {
  CredentialOfferObject,
  IssuerMetadataResult,
  Openid4vciClient,
} from "@openid4vc/openid4vci";
import { badRequest, KV_VALUE_LIMIT, obj, str } from "../base/mod.ts";
import { IssuerError, issuerFailure } from "./issuer_fetch.ts";
import type { Oid4vcLibraries } from "./library.ts";

/** The grant this service supports. */
export const PRE_AUTHORIZED_GRANT = "urn:ietf:params:oauth:grant-type:pre-authorized_code";
/** Formats this service receives: SD-JWT VCs, and W3C JSON-LD credentials (`ldp_vc`). */
const FORMATS = ["dc+sd-jwt", "vc+sd-jwt", "ldp_vc"];
/** Largest offer + metadata kept with a record: one KV value, with room for the sealed code. */
const MAX_KEPT_BYTES = KV_VALUE_LIMIT - 16 * 1024;

/** An offer as received. */
export interface ReceivedOffer {
  /** The offer object with its pre-authorized code removed. */
  offer: CredentialOfferObject;
  preAuthorizedCode: string;
  txCodeRequired: boolean;
  metadata: IssuerMetadataResult;
  issuerName?: string;
}

/** The query of an offer URI (`openid-credential-offer://?…`, or any URL carrying one). */
function checkOfferUri(uri: string): void {
  const q = uri.indexOf("?");
  const params = new URLSearchParams(q < 0 ? "" : uri.slice(q + 1));
  const byValue = params.has("credential_offer");
  const byRef = params.has("credential_offer_uri");
  if (byValue && byRef) {
    throw badRequest("A credential offer has credential_offer or credential_offer_uri, not both.");
  }
  if (!byValue && !byRef) {
    throw badRequest(
      "credentialOffer must be a credential offer URI with credential_offer= or credential_offer_uri=.",
    );
  }
}

/** The configurations of `ids` only, without what a request does not need. */
function slim(
  all: Record<string, Record<string, unknown>>,
  ids: string[],
): Record<string, Record<string, unknown>> {
  const out: Record<string, Record<string, unknown>> = {};
  for (const id of ids) {
    const c = all[id];
    if (!c) continue;
    const { display: _d, claims: _c, credential_metadata: _m, ...rest } = c;
    out[id] = rest;
  }
  return out;
}

/** The metadata the accept needs: the offered configurations, no display, no signed form. */
function keptMetadata(m: IssuerMetadataResult, ids: string[]): IssuerMetadataResult {
  const { display: _display, ...issuer } = m.credentialIssuer;
  return {
    originalDraftVersion: m.originalDraftVersion,
    credentialIssuer: {
      ...issuer,
      credential_configurations_supported: slim(
        m.credentialIssuer.credential_configurations_supported,
        ids,
      ),
    } as IssuerMetadataResult["credentialIssuer"],
    authorizationServers: m.authorizationServers,
    knownCredentialConfigurations: slim(
      m.knownCredentialConfigurations,
      ids,
    ) as IssuerMetadataResult["knownCredentialConfigurations"],
  };
}

/** The issuer's display name (English first), when it gives one. */
function issuerName(m: IssuerMetadataResult): string | undefined {
  const display = Array.isArray(m.credentialIssuer.display) ? m.credentialIssuer.display : [];
  const named = display.find((d) => str(d?.name) && /^en/i.test(str(d?.locale) ?? "en")) ??
    display.find((d) => str(d?.name));
  return str(named?.name);
}

/** Reads the offer URI, the offer and the issuer's metadata; checks what this service supports. */
export async function receiveOffer(
  libs: Oid4vcLibraries,
  client: Openid4vciClient,
  uri: string,
): Promise<ReceivedOffer> {
  checkOfferUri(uri);
  let offer: CredentialOfferObject;
  try {
    offer = await client.resolveCredentialOffer(uri);
  } catch (err) {
    throw issuerFailure(libs, err, "credential offer", "bad-offer", uri);
  }
  const grant = obj(offer.grants?.[PRE_AUTHORIZED_GRANT]);
  const code = str(grant?.["pre-authorized_code"]);
  if (!grant || !code) {
    throw badRequest(
      "The credential offer has no pre-authorized code grant, the only flow this service supports.",
    );
  }
  if (offer.credential_configuration_ids.length === 0) {
    throw badRequest("The credential offer names no credential_configuration_ids.");
  }
  const issuer = offer.credential_issuer;
  let metadata: IssuerMetadataResult;
  try {
    metadata = await client.resolveIssuerMetadata(issuer);
  } catch (err) {
    throw issuerFailure(libs, err, "credential issuer metadata", "bad-issuer");
  }
  const supported = metadata.credentialIssuer.credential_configurations_supported;
  for (const id of offer.credential_configuration_ids) {
    const c = supported[id];
    if (!c) {
      throw badRequest(
        `The offer names credential configuration "${id}", which ${issuer} does not publish.`,
      );
    }
    const format = String(c.format ?? "");
    if (!FORMATS.includes(format)) {
      throw badRequest(
        `Credential configuration "${id}" has format "${format}"; this service receives SD-JWT VCs (dc+sd-jwt, vc+sd-jwt) and W3C JSON-LD credentials (ldp_vc).`,
      );
    }
  }
  const { "pre-authorized_code": _code, ...kept } = grant;
  const received: ReceivedOffer = {
    offer: { ...offer, grants: { [PRE_AUTHORIZED_GRANT]: kept } } as CredentialOfferObject,
    preAuthorizedCode: code,
    txCodeRequired: grant.tx_code !== undefined,
    metadata: keptMetadata(metadata, offer.credential_configuration_ids),
    issuerName: issuerName(metadata),
  };
  const size = new TextEncoder().encode(JSON.stringify([received.offer, received.metadata]))
    .length;
  if (size > MAX_KEPT_BYTES) {
    throw new IssuerError(
      `The offer and metadata of ${issuer} are ${size} bytes; this service keeps up to ${MAX_KEPT_BYTES}.`,
    );
  }
  return received;
}

/** The offer object to redeem: the kept offer with its pre-authorized code put back. */
export function offerWithCode(offer: CredentialOfferObject, code: string): CredentialOfferObject {
  const grant = obj(offer.grants?.[PRE_AUTHORIZED_GRANT]) ?? {};
  return {
    ...offer,
    grants: { ...offer.grants, [PRE_AUTHORIZED_GRANT]: { ...grant, "pre-authorized_code": code } },
  } as CredentialOfferObject;
}
