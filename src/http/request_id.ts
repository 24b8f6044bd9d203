import type { MiddlewareHandler } from "hono";
import { log, logEnabled } from "../log.ts";
import type { AppEnv } from "./env.ts";

const SAFE_ID = /^[A-Za-z0-9._:-]{1,128}$/;

/** Gives every request an id (the caller's `x-request-id` when sane), echoes it, and logs the request. */
export function requestId(): MiddlewareHandler<AppEnv> {
  return async (c, next) => {
    const given = c.req.header("x-request-id");
    const id = given && SAFE_ID.test(given) ? given : crypto.randomUUID();
    c.set("requestId", id);
    const t0 = performance.now();
    await next();
    c.res.headers.set("x-request-id", id);
    const status = c.res.status;
    const level = status >= 500 ? "error" : status >= 400 ? "info" : "debug";
    if (logEnabled(level)) {
      log(level, "request", {
        requestId: id,
        method: c.req.method,
        path: c.req.path,
        status,
        ms: Math.round((performance.now() - t0) * 10) / 10,
      });
    }
  };
}
