/**
 * The client address of a request, for per-client limits: the connection's remote address
 * (`Deno.serve` hands it to the app as `c.env`, also on Deno Deploy), or, only when the operator
 * says a proxy of theirs is in front (`TRUST_PROXY_HEADERS=true`), the last `X-Forwarded-For`
 * entry: the address that proxy saw and appended. A client cannot choose it otherwise.
 *
 * @module
 */
import type { Context } from "hono";
import ipaddr from "ipaddr.js";

/** The client's address, or `unknown` when the request came without one (in-process calls). */
export function clientAddress(c: Context, trustProxyHeaders: boolean): string {
  if (trustProxyHeaders) {
    const xff = c.req.header("x-forwarded-for");
    const last = xff?.split(",").pop()?.trim();
    if (last && ipaddr.isValid(last)) return ipaddr.process(last).toString();
  }
  const info = c.env as { remoteAddr?: { hostname?: string } } | undefined;
  const host = info?.remoteAddr?.hostname;
  return host && ipaddr.isValid(host) ? ipaddr.process(host).toString() : "unknown";
}
