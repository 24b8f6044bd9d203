/**
 * OpenAPI helpers shared by every feature's route declarations.
 *
 * @module
 */
import { type OpenAPIHono, z } from "@hono/zod-openapi";
import type { AppEnv } from "./env.ts";

/** The error envelope (CONTRACT.md "Envelopes"). */
export const ErrorSchema = z.object({
  statusCode: z.number(),
  error: z.string(),
  message: z.string().optional(),
}).openapi("Error");

/** Error envelope responses for OpenAPI route definitions. */
export const errorResponses = (...codes: number[]) =>
  Object.fromEntries(
    codes.map((code) => [code, {
      description: String(code),
      content: { "application/json": { schema: ErrorSchema } },
    }]),
  );

/** A JSON response of `schema` for a route declaration. */
export const jsonContent = <T>(schema: T, description: string) => ({
  description,
  content: { "application/json": { schema } },
});

const UUID_RE = /^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$/;

/** A UUID field named `what` in its message, with an example for the OpenAPI document. */
export const uuidSchema = (what: string) =>
  z.string().regex(UUID_RE, `${what} must be a UUID.`).openapi({
    format: "uuid",
    example: "0190f0a2-6b1e-7c3d-8e4f-1a2b3c4d5e6f",
  });

/** Path parameter `id`: a record id (a UUID). */
export const RecordIdParam = z.object({
  id: uuidSchema("id").openapi({ param: { name: "id", in: "path" } }),
});

/**
 * Serves `GET /openapi.json`, made once on first request from the routes' zod schemas: the OpenAPI
 * 3.1 document with `servers` (the public URL), the bearer scheme, and an `operationId` on every
 * operation (routes name theirs; any route that does not gets one made of its method and path).
 */
export function serveOpenApi(
  app: OpenAPIHono<AppEnv>,
  publicUrl: string,
  info: { title: string; version: string; description: string },
): void {
  app.openAPIRegistry.registerComponent("securitySchemes", "bearer", {
    type: "http",
    scheme: "bearer",
    bearerFormat: "JWT",
  });
  let doc: string | undefined;
  app.get("/openapi.json", (c) => {
    doc ??= JSON.stringify(openApiDocument(app, publicUrl, info));
    return c.body(doc, 200, { "content-type": "application/json; charset=utf-8" });
  });
}

function openApiDocument(
  app: OpenAPIHono<AppEnv>,
  publicUrl: string,
  info: { title: string; version: string; description: string },
) {
  const doc = app.getOpenAPI31Document({
    openapi: "3.1.0",
    info,
    servers: [{ url: publicUrl, description: "This service (PUBLIC_URL)" }],
    security: [{ bearer: [] }],
  });
  for (const [path, item] of Object.entries(doc.paths ?? {})) {
    for (const method of ["get", "put", "post", "delete", "patch", "head", "options"] as const) {
      const op = item?.[method];
      if (op && !op.operationId) op.operationId = operationIdOf(method, path);
    }
  }
  return doc;
}

/** `post /orgs/{orgId}/agents/configure` → `postOrgsByOrgIdAgentsConfigure`. */
function operationIdOf(method: string, path: string): string {
  const words = path.split("/").filter(Boolean).map((seg) => {
    const param = /^\{(.+)\}$/.exec(seg);
    const w = (param ? `by-${param[1]}` : seg).split(/[^A-Za-z0-9]+/).filter(Boolean);
    return w.map((x) => x[0]!.toUpperCase() + x.slice(1)).join("");
  });
  return method + words.join("");
}
