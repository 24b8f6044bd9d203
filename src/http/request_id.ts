import type { Context } from "hono";
import type { AppEnv } from "./env.ts";
import { logRequest, requestIdFrom } from "./lite.ts";

/** `requestIdFrom` the request, stored in `c.var.requestId`. */
export function assignRequestId(c: Context<AppEnv>): string {
  const id = requestIdFrom(c.req.header("x-request-id"));
  c.set("requestId", id);
  return id;
}

/** Echoes the request id on the response and logs the request (5xx error, 4xx info, else debug). */
export function finishRequest(c: Context<AppEnv>, id: string, t0: number): void {
  c.res.headers.set("x-request-id", id);
  logRequest(id, c.req.method, c.req.path, c.res.status, t0);
}
