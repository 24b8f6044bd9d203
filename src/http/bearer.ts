/**
 * The one reading of `Authorization: Bearer <token>` (RFC 6750) and the one way to turn it into a
 * principal with a token verifier. Dependency-free (only `base/`), so the early DID lane can
 * use it before the app (and Hono) is loaded; `http/` builds its middleware on it.
 *
 * @module
 */
import { unauthorized } from "../base/mod.ts";

/** What a token verifier offers (`http/auth.ts` `createTokenVerifier` makes the service's). */
export interface BearerVerifier<P> {
  /** The principal of a valid token; throws a 401 (bad token) or 503 (keys unreachable). */
  verify(token: string): Promise<P>;
  /** The principal of a token verified before and still cached, else undefined (synchronous). */
  peek(token: string): P | undefined;
}

const BEARER = /^Bearer[ ]+([^ ]+)\s*$/i;

/**
 * The token of a `Bearer` authorization header; undefined when there is none (no header,
 * another scheme, no token).
 *
 * @example
 * ```ts
 * bearerToken("Bearer abc"); // "abc"
 * bearerToken("Basic abc"); // undefined
 * ```
 */
export function bearerToken(header: string | null | undefined): string | undefined {
  if (header == null) return undefined;
  // The common form without a regular expression: the warm DID path reads it on every request.
  if (header.length > 7 && header.startsWith("Bearer ") && header.indexOf(" ", 7) === -1) {
    return header.slice(7);
  }
  return BEARER.exec(header)?.[1];
}

/**
 * The bearer token, or a 401 with the RFC 6750 challenge: `Bearer` (no error code) when the
 * request has none, `Bearer error="invalid_token"` when the `Bearer` header is empty or malformed.
 */
export function requireBearer(header: string | null | undefined): string {
  const token = bearerToken(header);
  if (token !== undefined) return token;
  if (header != null && /^Bearer\b/i.test(header)) {
    throw unauthorized("The bearer token is empty or malformed.", true);
  }
  throw unauthorized("A bearer token is required (Authorization: Bearer <token>).", false);
}

/** The verified principal of a request's authorization header, or a 401/503 error. */
export function authenticate<P>(
  verifier: BearerVerifier<P>,
  header: string | null | undefined,
): Promise<P> {
  try {
    return verifier.verify(requireBearer(header));
  } catch (err) {
    return Promise.reject(err);
  }
}

/**
 * The principal of a header whose token the verifier holds verified in its cache, else
 * undefined (then {@link authenticate}): for answers that must not wait.
 */
export function peekPrincipal<P>(
  verifier: BearerVerifier<P>,
  header: string | null | undefined,
): P | undefined {
  const token = bearerToken(header);
  return token === undefined ? undefined : verifier.peek(token);
}
