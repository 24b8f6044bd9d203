/**
 * Redeeming an offer with `@openid4vc/openid4vci`: the token (pre-authorized code, `tx_code`),
 * a nonce (the nonce endpoint, else `c_nonce` of the token answer), then per offered
 * configuration a proof of possession by the org's key for it (`proof_key.ts`) and the credential
 * request: `credential_configuration_id` and `proofs` for OpenID4VCI 1.0 / draft 15, `format` and
 * `proof` for older issuers, as the library builds them. An issuer that issues in batches
 * (`batch_credential_issuance`) gets one proof per credential, up to {@link MAX_BATCH}, and every
 * credential of its answer is kept; an answer with a `transaction_id` is a deferral.
 *
 * @module
 */
import type { CredentialOfferObject, IssuerMetadataResult } from "@openid4vc/openid4vci";
import type { Wallet } from "../agents/mod.ts";
import { issuerClient } from "./client.ts";
import { issuerFailure } from "./issuer_fetch.ts";
import type { Oid4vcLibraries } from "./library.ts";
import { type HolderBinding, type ProofKey, proofKey } from "./proof_key.ts";
import { isObject } from "../base/mod.ts";
import { CredentialRejected } from "../credentials/mod.ts";
import type { SafeFetch } from "../outbound/mod.ts";

/** Most credentials asked for in one batch. */
export const MAX_BATCH = 10;

/** A credential as the issuer sent it, with the key it must be bound to. */
export interface IssuedCredential {
  configurationId: string;
  /** A compact SD-JWT VC, or a W3C JSON-LD credential (configurations of format `ldp_vc`). */
  credential: string | Record<string, unknown>;
  holder: HolderBinding;
}

/** Whether a configuration issues W3C JSON-LD credentials (`ldp_vc`) rather than SD-JWT VCs. */
export const isLdpFormat = (format: unknown): boolean => format === "ldp_vc";

/** A credential the issuer will send later (deferred issuance). */
export interface Deferral {
  configurationId: string;
  transactionId: string;
  holder: HolderBinding;
}

/** What the issuer answered. */
export interface Issuance {
  issued: IssuedCredential[];
  deferred: Deferral[];
  /** Seconds to wait before asking for deferred credentials. */
  intervalS?: number;
  accessToken: string;
  /** A refresh token, when the issuer gave one (deferred polls renew the access token with it). */
  refreshToken?: string;
  /** The authorization server that gave the token. */
  authorizationServer: string;
}

/** Who redeems: the libraries, the safe client, the wallet and the agent. */
export interface RedeemContext {
  libs: Oid4vcLibraries;
  safeFetch: SafeFetch;
  wallet: Wallet;
  agent: { orgId: string; agentId: string; keyId: string };
  now: () => number;
}

const holderOf = (k: ProofKey): HolderBinding => ({
  ...(k.kid ? { kid: k.kid } : {}),
  publicJwk: k.publicJwk,
});

/**
 * The credentials of a credential answer (`credentials` list, or the older `credential`): compact
 * SD-JWTs, or for an `ldp_vc` configuration (`ldp`) JSON-LD credential objects.
 */
export function credentialsOf(
  answer: { credentials?: unknown; credential?: unknown },
  ldp = false,
): Array<string | Record<string, unknown>> {
  const list = Array.isArray(answer.credentials)
    ? answer.credentials
    : answer.credential !== undefined
    ? [answer.credential]
    : [];
  return list.map((c) => {
    // `credentials: [{credential}]`; a JSON-LD credential of the older single `credential` is
    // the credential itself.
    const wrapped = c && typeof c === "object" && "credential" in c &&
      (Array.isArray(answer.credentials) || !ldp);
    const v = wrapped ? (c as { credential: unknown }).credential : c;
    if (ldp) {
      if (!isObject(v)) {
        throw new CredentialRejected(
          "the issuer sent an ldp_vc credential that is not a JSON object",
        );
      }
      return v;
    }
    if (typeof v !== "string") {
      throw new CredentialRejected("the issuer sent a credential that is not an SD-JWT string");
    }
    return v;
  });
}

/** Token, nonce, proofs and credential requests for every offered configuration. */
export async function redeemOffer(
  ctx: RedeemContext,
  offer: CredentialOfferObject,
  metadata: IssuerMetadataResult,
  txCode: string | undefined,
): Promise<Issuance> {
  const { libs } = ctx;
  const keys: ProofKey[] = [];
  const client = issuerClient(libs, ctx.safeFetch, keys);
  const token = await client.retrievePreAuthorizedCodeAccessTokenFromOffer({
    credentialOffer: offer,
    issuerMetadata: metadata,
    txCode,
  }).catch((err) => {
    throw issuerFailure(libs, err, "token", "bad-issuer");
  });
  const { access_token: accessToken, token_type: tokenType } = token.accessTokenResponse;
  if (!/^bearer$/i.test(tokenType)) {
    throw issuerFailure(
      libs,
      new libs.oauth2.Oauth2Error(`the issuer gave a ${tokenType} token; this service uses Bearer`),
      "token",
      "bad-issuer",
    );
  }
  let nonce = token.accessTokenResponse.c_nonce;
  if (metadata.credentialIssuer.nonce_endpoint) {
    const answer = await client.requestNonce({ issuerMetadata: metadata }).catch((err) => {
      throw issuerFailure(libs, err, "nonce", "bad-issuer");
    });
    nonce = answer.c_nonce;
  }
  const v = libs.vci.Openid4vciVersion;
  const version = metadata.originalDraftVersion;
  const batchSize = Math.min(
    MAX_BATCH,
    version === v.Draft11
      ? 1
      : metadata.credentialIssuer.batch_credential_issuance?.batch_size ?? 1,
  );
  const out: Issuance = {
    issued: [],
    deferred: [],
    accessToken,
    refreshToken: token.accessTokenResponse.refresh_token,
    authorizationServer: token.authorizationServer,
  };
  for (const configurationId of offer.credential_configuration_ids) {
    const config = metadata.credentialIssuer.credential_configurations_supported[configurationId]!;
    const key = await proofKey(ctx.wallet, ctx.agent, config, ctx.now());
    keys.push(key);
    const jwts: string[] = [];
    for (let i = 0; i < batchSize; i++) {
      const { jwt } = await client.createCredentialRequestJwtProof({
        issuerMetadata: metadata,
        credentialConfigurationId: configurationId,
        signer: key.signer,
        nonce,
        issuedAt: new Date(ctx.now()),
      }).catch((err) => {
        throw issuerFailure(libs, err, "proof", "bad-credential");
      });
      jwts.push(jwt);
    }
    const useProofs = version === v.V1 || version === v.Draft15 || jwts.length > 1;
    const { credentialResponse: answer } = await client.retrieveCredentials({
      issuerMetadata: metadata,
      credentialConfigurationId: configurationId,
      accessToken,
      ...(useProofs ? { proofs: { jwt: jwts } } : { proof: { proof_type: "jwt", jwt: jwts[0]! } }),
    }).catch((err) => {
      throw issuerFailure(libs, err, "credential", "bad-credential");
    });
    nonce = answer.c_nonce ?? nonce;
    if (answer.transaction_id !== undefined) {
      out.deferred.push({
        configurationId,
        transactionId: answer.transaction_id,
        holder: holderOf(key),
      });
      out.intervalS = Math.max(out.intervalS ?? 0, answer.interval ?? 0);
      continue;
    }
    const credentials = credentialsOf(answer, isLdpFormat(config.format));
    if (credentials.length === 0) {
      throw new CredentialRejected("the issuer's credential answer holds no credential");
    }
    for (const credential of credentials) {
      out.issued.push({ configurationId, credential, holder: holderOf(key) });
    }
  }
  return out;
}
