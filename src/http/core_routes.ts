import { createRoute, z } from "@hono/zod-openapi";
import { AppError } from "../errors.ts";
import type { TokenVerifier } from "./auth.ts";
import { createRouter } from "./router.ts";
import { requireBearer } from "./auth.ts";
import { errorResponses } from "./openapi.ts";

/** What the core routes use. */
export interface CoreRoutesDeps {
  verifier: TokenVerifier;
  /** Resolves when the service can take work (its database answers); rejects otherwise. */
  ready: () => Promise<void>;
}

/** `/health`, `/health/ready` and `/me`. */
export function coreRoutes(deps: CoreRoutesDeps) {
  const app = createRouter();

  app.openapi(
    createRoute({
      method: "get",
      path: "/health",
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
      summary: "Readiness: a KV write and read round trip",
      security: [],
      responses: {
        200: {
          description: "Ready",
          content: {
            "application/json": {
              schema: z.object({ status: z.literal("ready"), kvMs: z.number() }),
            },
          },
        },
        ...errorResponses(503),
      },
    }),
    async (c) => {
      const t0 = performance.now();
      try {
        await deps.ready();
      } catch (err) {
        throw new AppError("not_ready", 503, "The database is not reachable.", { cause: err });
      }
      return c.json({
        status: "ready" as const,
        kvMs: Math.round((performance.now() - t0) * 100) / 100,
      }, 200);
    },
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
      summary: "The verified principal: subject, orgs and roles",
      responses: {
        200: { description: "Principal", content: { "application/json": { schema: Me } } },
        ...errorResponses(401, 503),
      },
    }),
    async (c) => {
      const p = await deps.verifier.verify(requireBearer(c.req.header("authorization")));
      return c.json({ sub: p.sub, kind: p.kind, orgs: p.orgs }, 200);
    },
  );

  return app;
}
