/**
 * One poll of a deferred issuance (see `deferred.ts`): every credential still to come is asked
 * for at the issuer's deferred credential endpoint with the sealed access token, renewed once with
 * the refresh token when the endpoint refuses it as expired (401, or a `invalid_token` challenge,
 * which Credo sends with 403).
 *
 * @module
 */
import { AppError } from "../base/mod.ts";
import { issuerClient, oauthClient } from "./client.ts";
import type { SecretBox } from "../crypto/mod.ts";
import type { DidResolver } from "../did/mod.ts";
import type { SafeFetch } from "../outbound/mod.ts";
import type { Dispatcher } from "../outbox/mod.ts";
import type { CredentialStore, RemoteContexts } from "../credentials/mod.ts";
import type { StatusService } from "../status/mod.ts";
import { credentialsOf, type Deferral, isLdpFormat, type IssuedCredential } from "./issuance.ts";
import { bearerError, IssuerError, issuerFailure } from "./issuer_fetch.ts";
import { loadOid4vcLibraries, type Oid4vcLibraries } from "./library.ts";
import { type DeferredState, offerRefreshAad, offerTokenAad, type StoredOffer } from "./record.ts";
import { CredentialRejected } from "../credentials/mod.ts";

/** Bounds of the wait between polls, in seconds. */
export const MIN_INTERVAL_S = 1;
export const MAX_INTERVAL_S = 24 * 3600;

/** The issuer's interval within bounds. */
export const clampInterval = (s: number | undefined) =>
  Math.min(MAX_INTERVAL_S, Math.max(MIN_INTERVAL_S, Math.ceil(s ?? MIN_INTERVAL_S)));

/** What the poller uses. */
export interface DeferredDeps {
  kv: Deno.Kv;
  secrets: SecretBox;
  safeFetch: SafeFetch;
  resolver: DidResolver;
  dispatcher: Dispatcher;
  /** Credential status, checked on receipt (`receipt.ts`). */
  status: Pick<StatusService, "statusOf">;
  /** The org's stored credentials: what a poll brings is added there. */
  credentials: Pick<CredentialStore, "add">;
  /** JSON-LD contexts that are not bundled, for `ldp_vc` credentials (`receipt.ts`). */
  contexts?: RemoteContexts;
  now: () => number;
}

/** Tokens renewed during a poll. */
export interface Tokens {
  accessToken: string;
  refreshToken?: string;
}

export type PollOutcome =
  | {
    kind: "arrived";
    issued: IssuedCredential[];
    pending: Deferral[];
    intervalS: number;
    tokens?: Tokens;
  }
  | { kind: "failed"; message: string };

/** The resource server refused the access token (it expired): 401, or a `invalid_token` challenge. */
function tokenRefused(libs: Oid4vcLibraries, err: unknown): boolean {
  if (!(err instanceof libs.vci.Openid4vciRetrieveCredentialsError)) return false;
  const res = (err.response as { response: Response }).response;
  return res.status === 401 || bearerError(res) === "invalid_token";
}

/** A new access token from the refresh token. */
async function renew(
  deps: DeferredDeps,
  libs: Oid4vcLibraries,
  stored: StoredOffer,
  d: DeferredState,
): Promise<Tokens> {
  const { orgId, id } = stored.record;
  const metadata = stored.metadata!;
  const refreshToken = await deps.secrets.openString(
    d.sealedRefreshToken!,
    offerRefreshAad(orgId, id),
  );
  try {
    const as = libs.oauth2.getAuthorizationServerMetadataFromList(
      metadata.authorizationServers,
      d.authorizationServer ?? metadata.credentialIssuer.credential_issuer,
    );
    const r = await oauthClient(libs, deps.safeFetch).retrieveRefreshTokenAccessToken({
      authorizationServerMetadata: as,
      refreshToken,
      resource: metadata.credentialIssuer.credential_issuer,
    });
    return {
      accessToken: r.accessTokenResponse.access_token,
      refreshToken: r.accessTokenResponse.refresh_token ?? refreshToken,
    };
  } catch (err) {
    throw issuerFailure(libs, err, "token refresh", "bad-issuer");
  }
}

/** Asks for every credential still to come. */
export async function pollDeferred(
  deps: DeferredDeps,
  stored: StoredOffer,
  d: DeferredState,
): Promise<PollOutcome> {
  const libs = await loadOid4vcLibraries();
  const client = issuerClient(libs, deps.safeFetch);
  const { orgId, id } = stored.record;
  let accessToken = await deps.secrets.openString(
    d.sealedAccessToken,
    offerTokenAad(orgId, id),
  );
  let tokens: Tokens | undefined;
  const ask = async (t: Deferral) =>
    (await client.retrieveDeferredCredentials({
      issuerMetadata: stored.metadata!,
      accessToken,
      transactionId: t.transactionId,
    })).deferredCredentialResponse;
  const issued: IssuedCredential[] = [];
  const pending: Deferral[] = [];
  let intervalS = d.intervalS;
  for (const t of d.transactions) {
    try {
      let answer;
      try {
        answer = await ask(t);
      } catch (err) {
        if (tokens || !d.sealedRefreshToken || !tokenRefused(libs, err)) throw err;
        tokens = await renew(deps, libs, stored, d);
        accessToken = tokens.accessToken;
        answer = await ask(t);
      }
      if (answer.transaction_id !== undefined) {
        pending.push(t);
        intervalS = clampInterval(answer.interval);
        continue;
      }
      const format = stored.metadata!.credentialIssuer
        .credential_configurations_supported[t.configurationId]?.format;
      const credentials = credentialsOf(answer, isLdpFormat(format));
      if (credentials.length === 0) {
        return { kind: "failed", message: "The issuer's deferred answer holds no credential." };
      }
      for (const credential of credentials) issued.push({ ...t, credential });
    } catch (err) {
      const e = issuerFailure(libs, err, "deferred credential", "bad-credential");
      if (e instanceof IssuerError && e.oauthError === "issuance_pending") {
        pending.push(t);
        continue;
      }
      if (e instanceof IssuerError && e.oauthError === undefined) throw e; // unreachable: retry
      if (e instanceof AppError || e instanceof CredentialRejected) {
        return {
          kind: "failed",
          message: `The issuer did not deliver the deferred credential: ${e.message}`,
        };
      }
      throw e;
    }
  }
  return { kind: "arrived", issued, pending, intervalS, tokens };
}

/** The deferred state with renewed tokens sealed in. */
export async function withTokens(
  deps: DeferredDeps,
  stored: StoredOffer,
  d: DeferredState,
  tokens: Tokens | undefined,
): Promise<DeferredState> {
  if (!tokens) return d;
  const { orgId, id } = stored.record;
  return {
    ...d,
    sealedAccessToken: await deps.secrets.seal(tokens.accessToken, offerTokenAad(orgId, id)),
    ...(tokens.refreshToken
      ? {
        sealedRefreshToken: await deps.secrets.seal(
          tokens.refreshToken,
          offerRefreshAad(orgId, id),
        ),
      }
      : {}),
  };
}
