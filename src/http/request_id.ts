import type { Context } from "hono";
import { log, logEnabled } from "../log.ts";
import type { AppEnv } from "./env.ts";

const SAFE_ID = /^[A-Za-z0-9._:-]{1,128}$/;

/** The caller's `x-request-id` when sane, else a new UUID. */
export function requestIdFrom(given: string | null | undefined): string {
  return given && SAFE_ID.test(given) ? given : crypto.randomUUID();
}

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

/** The request's log line: 5xx error (but 501), 4xx info, else debug. */
export function logRequest(
  id: string,
  method: string,
  path: string,
  status: number,
  t0: number,
): void {
  // 501 is a DID method we do not support: the caller's choice, not our failure.
  const level = status >= 500 && status !== 501 ? "error" : status >= 400 ? "info" : "debug";
  if (logEnabled(level)) {
    log(level, "request", {
      requestId: id,
      method,
      path,
      status,
      ms: Math.round((performance.now() - t0) * 10) / 10,
    });
  }
}
