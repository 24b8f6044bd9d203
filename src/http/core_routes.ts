import { createRoute, z } from "@hono/zod-openapi";
import { createRouter } from "./router.ts";
import { errorResponses } from "./openapi.ts";

const Ready = z.object({
  status: z.literal("ready"),
  kvMs: z.number(),
  dispatcher: z.object({
    running: z.boolean(),
    inflight: z.number(),
    lastScanAgeMs: z.number().nullable(),
  }),
}).openapi("Readiness");

/** What the core routes use. */
export interface CoreRoutesDeps {
  /** The readiness report when the service can take work; throws a 503 AppError otherwise. */
  ready: () => Promise<z.infer<typeof Ready>>;
}

/** `/health`, `/health/ready` and `/me` (bearer auth is attached to `/me` in `app.ts`). */
export function coreRoutes(deps: CoreRoutesDeps) {
  const app = createRouter();

  app.openapi(
    createRoute({
      method: "get",
      path: "/health",
      operationId: "liveness",
      summary: "Liveness",
      security: [],
      responses: {
        200: {
          description: "The process is up.",
          content: { "application/json": { schema: z.object({ status: z.literal("ok") }) } },
        },
      },
    }),
    (c) => c.json({ status: "ok" as const }, 200),
  );

  app.openapi(
    createRoute({
      method: "get",
      path: "/health/ready",
      operationId: "readiness",
      summary: "Readiness: not shutting down, KV answers a read, the dispatcher loop is alive",
      description: "503 while the process drains before it exits (SIGTERM/SIGINT). Writes nothing.",
      security: [],
      responses: {
        200: { description: "Ready", content: { "application/json": { schema: Ready } } },
        ...errorResponses(503),
      },
    }),
    async (c) => c.json(await deps.ready(), 200),
  );

  const Me = z.object({
    sub: z.string(),
    kind: z.enum(["user", "agent"]),
    orgs: z.record(z.string(), z.array(z.string())),
  }).openapi("Principal");

  app.openapi(
    createRoute({
      method: "get",
      path: "/me",
      operationId: "getPrincipal",
      summary: "The verified principal: subject, orgs and roles",
      responses: {
        200: { description: "Principal", content: { "application/json": { schema: Me } } },
        ...errorResponses(401, 503),
      },
    }),
    (c) => {
      const p = c.var.principal;
      return c.json({ sub: p.sub, kind: p.kind, orgs: p.orgs }, 200);
    },
  );

  return app;
}
