/**
 * What the record route shapes (`org_record_routes.ts`, `member_record_routes.ts`) share: the
 * texts naming an operation in `/openapi.json`, and declaring a route whose handler reads its
 * validated input untyped (the routes are declared from data; the shapes' generics give each
 * service call its types).
 *
 * @module
 */
import type { createRoute, OpenAPIHono, z } from "@hono/zod-openapi";
import type { Context } from "hono";
import type { AppEnv } from "./env.ts";

/** What names and describes one operation in `/openapi.json`. */
export interface OperationDoc {
  /** OpenAPI path, parameters in braces (`/orgs/{orgId}/…/{id}`). */
  path: string;
  operationId: string;
  summary: string;
  description?: string;
}

/** A JSON response of a route declaration (as `jsonContent` makes it). */
export interface JsonResponse {
  description: string;
  content: { "application/json": { schema: z.ZodType } };
}

/** The `createRoute` fields of an operation: its texts and the feature's `tags`. */
export function operationFields(tags: string[], doc: OperationDoc) {
  const { path, operationId, summary, description } = doc;
  return {
    path,
    operationId,
    tags,
    summary,
    ...(description === undefined ? {} : { description }),
  };
}

/** The validated input of a request (`param`, `query` or `json`), as `T`. */
export function validated<T>(c: Context<AppEnv>, target: "param" | "query" | "json"): T {
  return (c.req.valid as (target: string) => T)(target);
}

/** Adds `route` to `app` with a handler that reads its input through {@link validated}. */
export function declareRoute(
  app: OpenAPIHono<AppEnv>,
  route: ReturnType<typeof createRoute>,
  handler: (c: Context<AppEnv>) => Promise<Response>,
): void {
  app.openapi(route, handler as never);
}
