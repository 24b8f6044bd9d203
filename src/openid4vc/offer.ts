/**
 * A credential offer (OpenID4VCI 1.0 §4, and drafts 13–15) and what the holder needs of the
 * issuer's metadata: the offer by value or by reference, the credential issuer metadata, the
 * authorization server metadata, reduced to {@link IssuerProfile}.
 *
 * @module
 */
import { badRequest } from "../errors.ts";
import { IssuerError, type IssuerHttp } from "./issuer_http.ts";
import { obj, str, strings } from "./json.ts";

export const PRE_AUTHORIZED_GRANT = "urn:ietf:params:oauth:grant-type:pre-authorized_code";

/** The parts of an offer the holder keeps. */
export interface ParsedOffer {
  credentialIssuer: string;
  credentialConfigurationIds: string[];
  preAuthorizedCode: string;
  txCodeRequired: boolean;
  /** Draft 11–13 spelling of the transaction code (`user_pin`). */
  legacyUserPin: boolean;
}

/** A credential configuration, reduced. */
export interface CredentialConfiguration {
  format: string;
  vct?: string;
  proofAlgs?: string[];
  bindingMethods?: string[];
}

/** What the holder needs of the issuer's and the authorization server's metadata. */
export interface IssuerProfile {
  credentialIssuer: string;
  tokenEndpoint: string;
  credentialEndpoint: string;
  nonceEndpoint?: string;
  /** The issuer speaks OpenID4VCI 1.0 (or draft 15): `proofs` and `credential_configuration_id`. */
  v1: boolean;
  issuerName?: string;
  configurations: Record<string, CredentialConfiguration>;
}

/** The query of an offer URI (`openid-credential-offer://?…`, or any URL carrying one). */
function offerParams(uri: string): URLSearchParams {
  const q = uri.indexOf("?");
  if (q < 0) {
    throw badRequest(
      "credentialOffer must be a credential offer URI with credential_offer= or credential_offer_uri=.",
    );
  }
  return new URLSearchParams(uri.slice(q + 1));
}

/** Reads the offer URI, fetching the offer when it is given by reference. */
export async function loadOffer(uri: string, http: IssuerHttp): Promise<Record<string, unknown>> {
  const params = offerParams(uri);
  const byValue = params.get("credential_offer");
  const byRef = params.get("credential_offer_uri");
  if (byValue !== null && byRef !== null) {
    throw badRequest("A credential offer has credential_offer or credential_offer_uri, not both.");
  }
  if (byValue !== null) {
    let parsed: unknown;
    try {
      parsed = JSON.parse(byValue);
    } catch {
      throw badRequest("credential_offer is not JSON.");
    }
    const o = obj(parsed);
    if (!o) throw badRequest("credential_offer must be a JSON object.");
    return o;
  }
  if (byRef !== null) {
    let url: URL;
    try {
      url = new URL(byRef);
    } catch {
      throw badRequest("credential_offer_uri is not a URL.");
    }
    const o = await http.getJson("credential offer", url.href);
    if (!o) throw new IssuerError(`The credential offer at ${url.href} was not found (404).`);
    return o;
  }
  throw badRequest(
    "credentialOffer must be a credential offer URI with credential_offer= or credential_offer_uri=.",
  );
}

/** Checks an offer object; what the holder keeps of it. */
export function parseOffer(o: Record<string, unknown>): ParsedOffer {
  const issuer = str(o.credential_issuer);
  if (!issuer || !/^https?:\/\//.test(issuer)) {
    throw badRequest("The credential offer has no credential_issuer URL.");
  }
  if (o.credentials !== undefined && o.credential_configuration_ids === undefined) {
    throw badRequest(
      "The credential offer uses `credentials` (OpenID4VCI draft 12 or older); drafts 13–15 and 1.0 are supported.",
    );
  }
  const ids = strings(o.credential_configuration_ids);
  if (!ids || ids.length === 0) {
    throw badRequest("The credential offer names no credential_configuration_ids.");
  }
  const grant = obj(obj(o.grants)?.[PRE_AUTHORIZED_GRANT]);
  const code = str(grant?.["pre-authorized_code"]);
  if (!grant || !code) {
    throw badRequest(
      "The credential offer has no pre-authorized code grant, the only flow this service supports.",
    );
  }
  const legacyUserPin = grant.user_pin_required === true;
  return {
    credentialIssuer: issuer.replace(/\/$/, ""),
    credentialConfigurationIds: ids,
    preAuthorizedCode: code,
    txCodeRequired: grant.tx_code !== undefined || legacyUserPin,
    legacyUserPin,
  };
}

/** `https://host/.well-known/<name>/path` (1.0, RFC 8414) and `https://host/path/.well-known/<name>`. */
function wellKnown(base: string, name: string): string[] {
  const u = new URL(base);
  const path = u.pathname.replace(/\/$/, "");
  const inserted = `${u.origin}/.well-known/${name}${path}`;
  const appended = `${u.origin}${path}/.well-known/${name}`;
  return inserted === appended ? [inserted] : [inserted, appended];
}

async function firstFound(
  http: IssuerHttp,
  what: string,
  urls: string[],
): Promise<Record<string, unknown> | null> {
  for (const url of urls) {
    const found = await http.getJson(what, url);
    if (found) return found;
  }
  return null;
}

/** Fetches and reduces the issuer's metadata (and its authorization server's). */
export async function loadIssuerProfile(
  offer: ParsedOffer,
  http: IssuerHttp,
): Promise<IssuerProfile> {
  const issuer = offer.credentialIssuer;
  const meta = await firstFound(
    http,
    "credential issuer metadata",
    wellKnown(issuer, "openid-credential-issuer"),
  );
  if (!meta) throw new IssuerError(`${issuer} publishes no credential issuer metadata (404).`);
  if (str(meta.credential_issuer)?.replace(/\/$/, "") !== issuer) {
    throw new IssuerError(
      `The metadata of ${issuer} names another credential_issuer (${
        String(meta.credential_issuer)
      }).`,
    );
  }
  const credentialEndpoint = str(meta.credential_endpoint);
  if (!credentialEndpoint) {
    throw new IssuerError(`The metadata of ${issuer} has no credential_endpoint.`);
  }
  const asUrl = strings(meta.authorization_servers)?.[0] ?? issuer;
  const as = await firstFound(http, "authorization server metadata", [
    ...wellKnown(asUrl, "oauth-authorization-server"),
    ...wellKnown(asUrl, "openid-configuration"),
  ]);
  const tokenEndpoint = str(as?.token_endpoint) ?? str(meta.token_endpoint);
  if (!tokenEndpoint) {
    throw new IssuerError(`Neither ${issuer} nor its authorization server names a token_endpoint.`);
  }
  const supported = obj(meta.credential_configurations_supported) ?? {};
  const configurations: Record<string, CredentialConfiguration> = {};
  for (const id of offer.credentialConfigurationIds) {
    const c = obj(supported[id]);
    if (!c) {
      throw badRequest(
        `The offer names credential configuration "${id}", which ${issuer} does not publish.`,
      );
    }
    const format = str(c.format) ?? "";
    if (format !== "dc+sd-jwt" && format !== "vc+sd-jwt") {
      throw badRequest(
        `Credential configuration "${id}" has format "${format}"; this service receives SD-JWT VCs (dc+sd-jwt, vc+sd-jwt).`,
      );
    }
    configurations[id] = {
      format,
      vct: str(c.vct),
      proofAlgs: strings(
        obj(obj(c.proof_types_supported)?.jwt)?.proof_signing_alg_values_supported,
      ),
      bindingMethods: strings(c.cryptographic_binding_methods_supported),
    };
  }
  const display = Array.isArray(meta.display) ? meta.display.map(obj) : [];
  const named = display.find((d) => str(d?.name) && /^en/i.test(str(d?.locale) ?? "en")) ??
    display.find((d) => str(d?.name));
  const nonceEndpoint = str(meta.nonce_endpoint);
  const anyV1Shape = Object.values(supported).some((c) =>
    obj(c)?.credential_metadata !== undefined
  );
  return {
    credentialIssuer: issuer,
    tokenEndpoint,
    credentialEndpoint,
    nonceEndpoint,
    v1: nonceEndpoint !== undefined || anyV1Shape,
    issuerName: str(named?.name),
    configurations,
  };
}
