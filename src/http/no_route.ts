/**
 * What a request that no route takes gets (CONTRACT "Envelopes"): 405 with `Allow` when routes of
 * its path take other methods (hono's `method-not-allowed`, which finds them with the router's
 * own matching), else 404; both in the error envelope.
 *
 * @module
 */
import type { OpenAPIHono } from "@hono/zod-openapi";
import type { Context, MiddlewareHandler } from "hono";
import { methodNotAllowed } from "hono/method-not-allowed";
import type { AppEnv } from "./env.ts";
import { errorResponse } from "./errors.ts";

/** The 405 middleware of `app` (attach it once, for every path). */
export function wrongMethod(app: OpenAPIHono<AppEnv>): MiddlewareHandler<AppEnv> {
  return methodNotAllowed({
    app,
    onMethodNotAllowed: (c: Context<AppEnv>, methods: string[]) => {
      // HEAD is answered wherever GET is; `Allow` names the methods routes declare.
      const allow = methods.filter((m) => m !== "HEAD").join(", ");
      return errorResponse(
        c,
        405,
        `${c.req.method} is not allowed on ${c.req.path}; use ${allow}.`,
        {
          headers: { allow },
        },
      );
    },
  }) as MiddlewareHandler<AppEnv>;
}

/** The 404 of a path no route takes. */
export function noRoute(c: Context<AppEnv>): Response {
  return errorResponse(c, 404, `No route for ${c.req.method} ${c.req.path}.`);
}
