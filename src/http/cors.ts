/**
 * CORS for every route but DID resolution (CONTRACT env `CORS_ORIGINS` and "DID resolution"):
 * a browser page on one of the configured origins may call the API with its bearer token. hono's
 * own `cors` middleware answers for those origins (preflights 204); any other origin gets no CORS
 * headers, so its browser refuses to hand the answer over. The resolution routes (`/dids/…`,
 * `/1.0/…`) allow every origin and answer their own CORS in the DID routes; this leaves them alone.
 *
 * No credentials mode: the API authenticates with the `Authorization` header, never cookies, so
 * `Access-Control-Allow-Credentials` is not sent (a page's `fetch` sends its token explicitly).
 *
 * @module
 */
import type { MiddlewareHandler } from "hono";
import { cors } from "hono/cors";
import type { AppEnv } from "./env.ts";

/** The methods of the API's routes. */
const METHODS = ["GET", "POST", "PATCH", "DELETE"];
/** What a page may send: its token, JSON bodies, its own request id. */
const REQUEST_HEADERS = ["Authorization", "Content-Type", "X-Request-Id"];
/** What a page may read beyond the CORS-safelisted response headers. */
const RESPONSE_HEADERS = ["X-Request-Id", "WWW-Authenticate", "Retry-After", "Location"];
/** How long a browser may keep a preflight's answer (s). */
const PREFLIGHT_MAX_AGE = 600;

/** True for the DID resolution routes, which answer CORS themselves (any origin). */
function isResolutionPath(path: string): boolean {
  return path.startsWith("/dids/") || path.startsWith("/1.0/");
}

/**
 * The CORS middleware for `origins` (`CORS_ORIGINS`, normalized by `parseConfig`), or undefined
 * when there are none (then no route answers cross-origin requests but DID resolution's).
 */
export function corsFor(origins: readonly string[]): MiddlewareHandler<AppEnv> | undefined {
  if (origins.length === 0) return undefined;
  const allowed = new Set(origins);
  const allow = cors({
    origin: (origin) => allowed.has(origin) ? origin : null,
    allowMethods: METHODS,
    allowHeaders: REQUEST_HEADERS,
    exposeHeaders: RESPONSE_HEADERS,
    maxAge: PREFLIGHT_MAX_AGE,
    credentials: false,
  });
  return async (c, next) => {
    if (isResolutionPath(c.req.path)) return await next();
    const origin = c.req.header("origin");
    if (origin !== undefined && allowed.has(origin)) return await allow(c, next);
    await next();
    // The answer depends on the origin: a cache must not give this one to an allowed origin.
    c.header("Vary", "Origin", { append: true });
  };
}
