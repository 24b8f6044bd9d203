import * as jose from "jose";
import { createPublicKey } from "node:crypto";
import { AppError, isObject, Lru, unauthorized } from "../base/mod.ts";

/** The verified caller: subject, org roles (Keycloak `resource_access`), and where the token came from. */
export interface Principal {
  sub: string;
  /** orgId → roles. */
  orgs: Record<string, string[]>;
  /** `user`: identity provider token; `agent`: an org agent token minted by this service. */
  kind: "user" | "agent";
  /** Token expiry (seconds since epoch). */
  exp: number;
  /** Agent tokens: the org agent's key epoch when the token was minted (claim `kep`). */
  keyEpoch?: string;
}

/** Roles that administer an org. */
export const ADMIN_ROLES = ["owner", "admin"] as const;
/** Roles that make a caller a member of an org. */
export const MEMBER_ROLES = ["owner", "admin", "issuer", "verifier", "holder", "member"] as const;

/** A key source for one issuer. */
export interface TrustedIssuer {
  issuer: string;
  audience: string[];
  algorithms: string[];
  key: jose.JWTVerifyGetKey | jose.CryptoKey | jose.KeyObject | jose.JWK | Uint8Array;
  kind: Principal["kind"];
  /**
   * Checked on every use of a token of this issuer, cached or not: throws (401) when a token
   * whose signature is valid is no longer honoured (an agent's key was rotated).
   */
  stillValid?: (p: Principal) => Promise<void>;
}

/** Verifies bearer tokens (read from the request by `bearer.ts`). */
export interface TokenVerifier {
  /** Returns the principal or throws AppError 401 (bad token) / 503 (keys unreachable). */
  verify(token: string): Promise<Principal>;
  /**
   * The principal of a token `verify` accepted before and still holds in its cache, else
   * undefined (then call `verify`). Synchronous, for hot paths that answer without awaiting.
   * Tokens of an issuer with a `stillValid` check are never answered here.
   */
  peek(token: string): Principal | undefined;
  /** Adds another trusted issuer (the service's own agent tokens). */
  trust(issuer: TrustedIssuer): void;
}

/** Builds a key getter from AUTH_PUBLIC_KEY (PEM SPKI or JWK JSON), for whatever allowed alg the header names. */
export function staticKeyGetter(publicKey: string): jose.JWTVerifyGetKey {
  const jwk: jose.JWK = publicKey.startsWith("{")
    ? JSON.parse(publicKey)
    : (createPublicKey(publicKey).export({ format: "jwk" }) as jose.JWK);
  const byAlg = new Map<string, Promise<jose.CryptoKey | Uint8Array>>();
  return (header) => {
    const alg = header.alg;
    let k = byAlg.get(alg);
    if (!k) {
      k = jose.importJWK(jwk, alg) as Promise<jose.CryptoKey | Uint8Array>;
      k.catch(() => byAlg.delete(alg));
      byAlg.set(alg, k);
    }
    return k;
  };
}

/** Reads org roles from `resource_access` (Keycloak style: `{"<orgId>": {"roles": [...]}}`). */
export function rolesFromClaims(payload: jose.JWTPayload): Record<string, string[]> {
  const ra = payload.resource_access;
  const orgs: Record<string, string[]> = {};
  if (isObject(ra)) {
    for (const [org, v] of Object.entries(ra)) {
      const roles = (v as { roles?: unknown })?.roles;
      if (Array.isArray(roles)) orgs[org] = roles.filter((r): r is string => typeof r === "string");
    }
  }
  return orgs;
}

const CACHE_MAX = 10_000;
const CACHE_MS = 60_000;

/**
 * Creates the verifier: pinned algorithms, issuer and audience; `exp` and `sub` required; 30 s
 * clock tolerance. Verified tokens are remembered (bounded, keyed by the whole token, never past
 * `exp`) so hot endpoints skip the signature check.
 */
export function createTokenVerifier(
  primary: TrustedIssuer,
  opts: { now?: () => number } = {},
): TokenVerifier {
  const issuers = new Map<string, TrustedIssuer>([[primary.issuer, primary]]);
  const cache = new Lru<{ p: Principal; until: number; issuer: TrustedIssuer }>(CACHE_MAX);
  const now = opts.now ?? Date.now;

  async function verifyUncached(token: string): Promise<{ p: Principal; issuer: TrustedIssuer }> {
    let iss: string | undefined;
    try {
      iss = jose.decodeJwt(token).iss;
    } catch {
      throw unauthorized("The bearer token is not a well-formed JWT.", true);
    }
    const trusted = (iss && issuers.get(iss)) || primary;
    let payload: jose.JWTPayload;
    try {
      const res = await jose.jwtVerify(token, trusted.key as jose.JWTVerifyGetKey, {
        algorithms: trusted.algorithms,
        issuer: trusted.issuer,
        audience: trusted.audience,
        requiredClaims: ["exp", "sub"],
        clockTolerance: 30,
        currentDate: new Date(now()),
      });
      payload = res.payload;
    } catch (err) {
      throw mapJoseError(err);
    }
    const p: Principal = {
      sub: payload.sub!,
      orgs: rolesFromClaims(payload),
      kind: trusted.kind,
      exp: payload.exp!,
    };
    if (trusted.kind === "agent") p.keyEpoch = typeof payload.kep === "string" ? payload.kep : "";
    return { p, issuer: trusted };
  }

  return {
    trust(issuer) {
      issuers.set(issuer.issuer, issuer);
    },
    peek(token) {
      const hit = cache.get(token);
      return hit !== undefined && hit.until > now() && hit.issuer.stillValid === undefined
        ? hit.p
        : undefined;
    },
    async verify(token) {
      const t = now();
      const hit = cache.get(token);
      if (hit) {
        if (hit.until > t) {
          // No await for issuers without a check: the hot path stays one Map lookup (Lru.get).
          if (hit.issuer.stillValid !== undefined) await hit.issuer.stillValid(hit.p);
          return hit.p;
        }
        cache.delete(token);
      }
      const { p, issuer } = await verifyUncached(token);
      if (issuer.stillValid !== undefined) await issuer.stillValid(p);
      const until = Math.min(t + CACHE_MS, (p.exp + 30) * 1000);
      if (until > t) cache.set(token, { p, until, issuer });
      return p;
    },
  };
}

function mapJoseError(err: unknown): AppError {
  if (err instanceof jose.errors.JWTExpired) {
    return unauthorized("The bearer token has expired.", true);
  }
  if (err instanceof jose.errors.JWTClaimValidationFailed) {
    return unauthorized(`The bearer token's "${err.claim}" claim is not accepted.`, true);
  }
  if (err instanceof jose.errors.JOSEAlgNotAllowed) {
    return unauthorized("The bearer token is signed with an algorithm that is not allowed.", true);
  }
  if (err instanceof jose.errors.JWKSTimeout || err instanceof jose.errors.JWKSInvalid) {
    return new AppError(
      "auth_unavailable",
      503,
      "The identity provider's keys could not be fetched; try again shortly.",
      { cause: err },
    );
  }
  if (err instanceof jose.errors.JOSEError) {
    return unauthorized("The bearer token is not valid.", true);
  }
  // Anything else comes from fetching the JWKS (connection refused, DNS, …).
  return new AppError(
    "auth_unavailable",
    503,
    "The identity provider's keys could not be fetched; try again shortly.",
    { cause: err },
  );
}

/** True when `p` has one of `roles` in `orgId`. */
export function hasOrgRole(p: Principal, orgId: string, roles: readonly string[]): boolean {
  const mine = Object.hasOwn(p.orgs, orgId) ? p.orgs[orgId]! : [];
  return mine.some((r) => roles.includes(r));
}

/** The identity provider's settings (`config.auth`). */
export interface IdentityProvider {
  issuer: string;
  audience: string[];
  algorithms: string[];
  /** `AUTH_JWKS_URL`: the provider's keys, fetched and cached. */
  jwksUrl?: string;
  /** `AUTH_PUBLIC_KEY`: its one key (PEM or JWK), when there is no JWKS URL. */
  publicKey?: string;
}

/**
 * The verifier of the identity provider's user tokens: its keys from the JWKS URL (fetched with
 * `jwksTimeoutMs`, cached 10 min, refetched at most every 30 s) or its one configured key.
 */
export function userTokenVerifier(
  idp: IdentityProvider,
  opts: { now?: () => number; jwksTimeoutMs?: number } = {},
): TokenVerifier {
  return createTokenVerifier({
    issuer: idp.issuer,
    audience: idp.audience,
    algorithms: idp.algorithms,
    key: idp.jwksUrl
      ? jose.createRemoteJWKSet(new URL(idp.jwksUrl), {
        timeoutDuration: opts.jwksTimeoutMs ?? 5000,
        cooldownDuration: 30_000,
        cacheMaxAge: 10 * 60_000,
      })
      : staticKeyGetter(idp.publicKey!),
    kind: "user",
  }, { now: opts.now });
}
