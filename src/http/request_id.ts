import type { Context } from "hono";
import { matchedRoutes } from "hono/route";
import type { AppEnv } from "./env.ts";
import { logRequest, requestIdFrom, requestLogged } from "./lite.ts";

/** `requestIdFrom` the request, stored in `c.var.requestId`. */
export function assignRequestId(c: Context<AppEnv>): string {
  const id = requestIdFrom(c.req.header("x-request-id"));
  c.set("requestId", id);
  return id;
}

/** Echoes the request id on the response and writes its access line (`lite.ts`). */
export function finishRequest(c: Context<AppEnv>, id: string, t0: number): void {
  c.res.headers.set("x-request-id", id);
  const status = c.res.status;
  if (!requestLogged(status)) return;
  logRequest(id, c.req.method, routeOf(c), status, t0, false, orgOf(c));
}

/** Route patterns as the router spells them (`/orgs/:orgId`) → as the contract does (`/orgs/{orgId}`). */
const patterns = new Map<string, string>();

/**
 * The pattern of the route that answered (or would have, past a refusal of its middleware): the
 * last matched route that is not middleware (`app.use` registers those for `ALL` methods); null
 * when none matched (404, 405).
 */
export function routeOf(c: Context): string | null {
  const routes = matchedRoutes(c);
  for (let i = routes.length - 1; i >= 0; i--) {
    const r = routes[i]!;
    if (r.method === "ALL") continue;
    let pattern = patterns.get(r.path);
    if (pattern === undefined) {
      pattern = r.path.replace(/:([A-Za-z0-9_]+)(\{[^/]*\})?/g, "{$1}");
      patterns.set(r.path, pattern);
    }
    return pattern;
  }
  return null;
}

/**
 * The org a request acted on, when known: the one a route checked access to (`c.var.orgId`, set
 * by `requireOrg` and the routes that name the org in a body or query), else the org of an agent
 * token.
 */
function orgOf(c: Context<AppEnv>): string | undefined {
  const named = c.get("orgId");
  if (named !== undefined) return named;
  const p = c.get("principal");
  return p?.kind === "agent" ? Object.keys(p.orgs)[0] : undefined;
}
