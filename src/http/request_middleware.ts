/**
 * The one middleware every request of the app goes through: its request id and log line, and
 * where a body can be, the body checks (JSON only, except `POST /didcomm`, which checks its own
 * content types; 1 MiB at most). Its own refusals (415, 413) get the error envelope here.
 *
 * @module
 */
import type { MiddlewareHandler } from "hono";
import { bodyLimit } from "hono/body-limit";
import { AppError } from "../base/mod.ts";
import type { AppEnv } from "./env.ts";
import { onError } from "./errors.ts";
import { assignRequestId, finishRequest } from "./request_id.ts";

const BODY_LIMIT = 1024 * 1024;
const JSON_TYPE = /^application\/([a-z0-9.+-]*\+)?json\b/i;

/** The request middleware (see the module doc). */
export function requestMiddleware(): MiddlewareHandler<AppEnv> {
  const limitBody = bodyLimit({
    maxSize: BODY_LIMIT,
    onError: () => {
      throw new AppError(
        "payload_too_large",
        413,
        "The request body is larger than the limit of 1 MiB.",
      );
    },
  });
  return async (c, next) => {
    const t0 = performance.now();
    const id = assignRequestId(c);
    const m = c.req.method;
    try {
      if (m === "GET" || m === "HEAD" || m === "OPTIONS") {
        await next();
      } else {
        // JSON APIs take JSON; DIDComm checks its own content types.
        if ((m === "POST" || m === "PUT" || m === "PATCH") && c.req.path !== "/didcomm") {
          checkJsonBody(
            c.req.header("content-type"),
            c.req.header("content-length"),
            c.req.header("transfer-encoding"),
          );
        }
        await limitBody(c, next);
      }
    } catch (err) {
      // This middleware's own refusals (415, 413) get the envelope here, with the request id.
      c.res = onError(err instanceof Error ? err : new Error(String(err)), c);
    }
    finishRequest(c, id, t0);
  };
}

/** 415 unless a body that is there is declared JSON. A bare POST (no length, no type) has none. */
function checkJsonBody(
  ct: string | undefined,
  len: string | undefined,
  te: string | undefined,
): void {
  const hasBody = len !== undefined ? len !== "0" : ct !== undefined || te !== undefined;
  if (hasBody && (!ct || !JSON_TYPE.test(ct))) {
    throw new AppError(
      "unsupported_media_type",
      415,
      `Send the request body as application/json${ct ? `, not "${ct.split(";")[0]}"` : ""}.`,
    );
  }
}
