/**
 * The IETF Token Status List for SD-JWT VCs: the credential's `status.status_list` (`idx`, `uri`)
 * points into a `statuslist+jwt` that this service fetches, verifies against the credential's
 * issuer (the JWT's signature by a key of the issuer's DID, through this service's resolver; `sub`
 * is the `uri`; `iat`; `exp` not passed) and keeps until its `ttl` (seconds) or `exp`. Decoding
 * is `@sd-jwt/jwt-status-list`'s. Status values: 0 valid, 1 revoked (INVALID), 2 suspended;
 * others are `unknown` (application-specific).
 *
 * @module
 */
import { getListFromStatusListJWT } from "@sd-jwt/jwt-status-list";
import * as jose from "jose";
import type { SafeFetch } from "../outbound/mod.ts";
import { fetchList, StatusProblem } from "./fetch_list.ts";
import { fromBase64url, inflatedSize } from "./inflate.ts";
import { issuerJwk, type IssuerKeyDeps, issuerKeySources } from "./issuer_key.ts";
import { freshUntil, type StatusListCache } from "./list_cache.ts";
import type { StatusState, StatusTarget } from "./types.ts";

/** What the check uses. */
export interface TokenStatusDeps extends IssuerKeyDeps {
  cache: StatusListCache;
  safeFetch: SafeFetch;
  now: () => number;
  /** Freshness of a list that gives no `ttl` (the DID cache TTL). */
  defaultTtlMs: number;
}

const ALGS = ["EdDSA", "Ed25519", "ES256", "ES384", "ES512", "PS256", "RS256"];
const BITS = [1, 2, 4, 8];
const STATES: Record<number, StatusState> = { 0: "valid", 1: "revoked", 2: "suspended" };

/** The status of an SD-JWT VC; `unknown` with a message when it cannot be established. */
export async function tokenListStatus(
  target: Extract<StatusTarget, { format: "dc+sd-jwt" }>,
  deps: TokenStatusDeps,
): Promise<{ state: StatusState; message?: string }> {
  if (target.problem) {
    return { state: "unknown", message: `The credential's status: ${target.problem}.` };
  }
  if (!target.reference) {
    return {
      state: "unknown",
      message: "The credential has no status entry (status.status_list).",
    };
  }
  const { idx, uri } = target.reference;
  try {
    const jwt = await verifiedList(uri, target.issuer, deps);
    let value: number;
    try {
      value = getListFromStatusListJWT(jwt).getStatus(idx);
    } catch {
      throw new StatusProblem(`index ${idx} is outside the status list ${uri}`);
    }
    const state = STATES[value];
    return state
      ? { state }
      : { state: "unknown", message: `The status list ${uri} gives the status value ${value}.` };
  } catch (err) {
    if (!(err instanceof StatusProblem)) throw err;
    return { state: "unknown", message: `The status could not be checked: ${err.message}.` };
  }
}

/** The list JWT at `uri`, verified for `issuer`: from the cache while fresh, else fetched. */
async function verifiedList(uri: string, issuer: string, deps: TokenStatusDeps): Promise<string> {
  const now = deps.now();
  const cached = await deps.cache.get(uri, "jwt", now);
  if (cached && cached.issuer === issuer) return cached.body;
  const jwt = cached?.body ??
    (await deps.cache.fetch(
      uri,
      deps.now,
      () => fetchList(deps.safeFetch, uri, "application/statuslist+jwt"),
    )).trim();
  const payload = await verifyListJwt(jwt, uri, issuer, deps);
  await deps.cache.put({
    url: uri,
    kind: "jwt",
    body: jwt,
    issuer,
    fetchedAt: cached?.fetchedAt ?? now,
    freshUntil: cached?.freshUntil ?? freshUntil({
      fetchedAt: now,
      ttlMs: typeof payload.ttl === "number" ? payload.ttl * 1000 : undefined,
      expiresAt: typeof payload.exp === "number" ? payload.exp * 1000 : undefined,
      defaultTtlMs: deps.defaultTtlMs,
    }),
  }, now);
  return jwt;
}

/** Checks a `statuslist+jwt` against the rules above; its payload, or a {@link StatusProblem}. */
export async function verifyListJwt(
  jwt: string,
  uri: string,
  issuer: string,
  deps: IssuerKeyDeps & { now: () => number },
): Promise<jose.JWTPayload> {
  const bad = (why: string): never => {
    throw new StatusProblem(`the status list ${uri} ${why}`);
  };
  let header: jose.ProtectedHeaderParameters;
  let payload: jose.JWTPayload;
  try {
    header = jose.decodeProtectedHeader(jwt);
    payload = jose.decodeJwt(jwt);
  } catch {
    return bad("is not a JWT");
  }
  if (header.typ !== "statuslist+jwt" && header.typ !== "application/statuslist+jwt") {
    bad(`has the JWT typ "${String(header.typ)}", not statuslist+jwt`);
  }
  if (typeof header.alg !== "string" || !ALGS.includes(header.alg)) {
    bad(`is signed with the algorithm "${String(header.alg)}", which is not allowed`);
  }
  let key: jose.JWK;
  try {
    key = await issuerJwk(issuerKeySources(deps), issuer, header as Record<string, unknown>);
  } catch (err) {
    return bad(`is not signed by a key of the issuer ${issuer}: ${(err as Error).message}`);
  }
  try {
    const pub = await jose.importJWK({ ...key, alg: undefined } as jose.JWK, header.alg);
    await jose.compactVerify(jwt, pub, { algorithms: [header.alg!] });
  } catch {
    bad(`is not signed by the issuer ${issuer} (its signature does not verify with ${header.kid})`);
  }
  if (payload.sub !== uri) bad(`names another list as its subject (sub ${String(payload.sub)})`);
  if (typeof payload.iat !== "number") bad("has no iat");
  if (payload.iss !== undefined && payload.iss !== issuer) {
    bad(`was issued by ${String(payload.iss)}, not by the credential's issuer ${issuer}`);
  }
  const nowS = deps.now() / 1000;
  if (typeof payload.exp === "number" && payload.exp <= nowS) bad("has expired (exp)");
  const list = payload.status_list as { bits?: unknown; lst?: unknown } | undefined;
  if (typeof list?.lst !== "string" || !BITS.includes(list.bits as number)) {
    bad("has no status_list with bits (1, 2, 4 or 8) and lst");
  }
  try {
    await inflatedSize(fromBase64url(list!.lst as string), "deflate");
  } catch (err) {
    bad(`cannot be decoded: ${(err as Error).message}`);
  }
  return payload;
}
