/**
 * The HTTP app: one middleware (request id, log line, body checks), the routers of every feature
 * built from the services, the OpenAPI document, 404/405 and one onError; in front of the router,
 * the door of the DID routes (`answerDid`), which answers them without the router's work.
 *
 * @module
 */
import { OpenAPIHono } from "@hono/zod-openapi";
import type { Context } from "hono";
import { bodyLimit } from "hono/body-limit";
import { agentRoutes } from "./agents/mod.ts";
import type { Services } from "./compose.ts";
import { credentialRoutes, W3cCredentialSchema } from "./credentials/mod.ts";
import { didRoutes } from "./did/mod.ts";
import { didcommRoutes } from "./didcomm/mod.ts";
import { AppError } from "./errors.ts";
import {
  type AppEnv,
  assignRequestId,
  bearerAuth,
  coreRoutes,
  corsFor,
  docsRoutes,
  errorResponse,
  finishRequest,
  onError,
  requireOrg,
} from "./http/mod.ts";
import { type ProcessState, readinessCheck } from "./readiness.ts";
import { openid4vpRoutes } from "./openid4vp/mod.ts";
import { openid4vcRoutes, SdJwtCredentialSchema } from "./openid4vc/mod.ts";
import { statusRoutes } from "./status/mod.ts";
import { proofRoutes } from "./proofs/mod.ts";
import { eventWebhooks, webhookRoutes } from "./webhooks/mod.ts";
import { webRoutes } from "./web/mod.ts";

/** Options of the app. */
export interface AppOptions {
  /** Extra routers for tests (mounted after the features). */
  extraRoutes?: OpenAPIHono<AppEnv>[];
  /** The process state readiness reports (`main.ts` sets it; default: never draining). */
  processState?: ProcessState;
}

/**
 * The path prefixes under which every route needs a bearer token (CONTRACT "Authentication and
 * authorization"), verified by one middleware attached to each. Not here: the public routes
 * (health, OpenAPI, docs, the page, `POST /didcomm`), `POST /agent/token` (an agent API key),
 * and the DID resolution routes (`/dids/…`, `/1.0/…`), whose answer pipeline checks the same
 * token itself (none with `DID_RESOLUTION_PUBLIC=true`).
 */
const BEARER_PREFIXES = [
  "/me",
  "/orgs/*",
  "/credentials/*",
  "/didcomm/credentials/*",
  "/proofs/*",
  "/notification/*",
];

const BODY_LIMIT = 1024 * 1024;
const JSON_TYPE = /^application\/([a-z0-9.+-]*\+)?json\b/i;

/** Builds the Hono app from the services. */
export function createApp(services: Services, opts: AppOptions = {}): OpenAPIHono<AppEnv> {
  const app = new OpenAPIHono<AppEnv>();
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
  // One middleware for every request: request id and log line; body checks where a body can be.
  app.use("*", async (c, next) => {
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
  });

  // Cross-origin calls from the CORS_ORIGINS pages (before auth: a preflight carries no token).
  const cors = corsFor(services.config.corsOrigins);
  if (cors) app.use("*", cors);

  const { verifier } = services;
  // Bearer auth once per path prefix; org routes also need a role in the org of their path.
  const auth = bearerAuth({ verifier });
  for (const prefix of BEARER_PREFIXES) app.use(prefix, auth);
  app.use("/orgs/:orgId/*", requireOrg("member"));
  app.use("/orgs/:orgId/agents/*", requireOrg("admin"));

  app.route("/", coreRoutes({ ready: readinessCheck(services, opts.processState) }));
  const dids = didRoutes({
    resolver: services.resolver,
    verifier,
    isPublic: services.config.didResolutionPublic,
    now: services.now,
    info: {
      methods: [...services.resolver.registry.methods.keys()],
      traits: Object.fromEntries(
        [...services.resolver.registry.methods].flatMap(([name, m]) =>
          m.traits ? [[name, m.traits]] : []
        ),
      ),
      plugins: Object.fromEntries(
        [...services.resolver.registry.methods].flatMap(([name, m]) =>
          m.properties ? [[name, m.properties]] : []
        ),
      ),
      testIdentifiers: services.config.didTestIdentifiers,
      ttlSeconds: services.config.didCacheTtlSeconds,
      maxStaleSeconds: services.config.didCacheMaxStaleSeconds,
      fallbackConfigured: services.config.universalResolverUrl !== undefined,
    },
  });
  app.route("/", dids.router);
  app.route(
    "/",
    agentRoutes({
      agents: services.agents,
      requireHttps: services.config.outbound.requireHttps,
      trustProxyHeaders: services.config.trustProxyHeaders,
    }),
  );
  app.route(
    "/",
    didcommRoutes({
      didcomm: services.didcomm,
      trustProxyHeaders: services.config.trustProxyHeaders,
    }),
  );
  app.route("/", webhookRoutes({ webhooks: services.webhooks }));
  app.route("/", credentialRoutes({ holder: services.holder }));
  app.route("/", openid4vcRoutes({ openid4vc: services.openid4vc }));
  app.route("/", openid4vpRoutes({ openid4vp: services.openid4vp }));
  app.route(
    "/",
    statusRoutes({
      status: services.status,
      w3c: {
        schema: W3cCredentialSchema,
        read: async (orgId, id) => {
          const record = await services.holder.getW3c(orgId, id);
          return { record, subject: { format: "ldp_vc", credential: record.credential } };
        },
      },
      sdJwt: {
        schema: SdJwtCredentialSchema,
        read: async (orgId, id) => {
          const record = await services.openid4vc.credential(orgId, id);
          return { record, subject: { format: "dc+sd-jwt", compact: record.compact } };
        },
      },
    }),
  );
  app.route("/", proofRoutes({ prover: services.prover }));
  for (const extra of opts.extraRoutes ?? []) app.route("/", extra);
  app.route("/", docsRoutes());
  app.route("/", webRoutes());

  app.openAPIRegistry.registerComponent("securitySchemes", "bearer", {
    type: "http",
    scheme: "bearer",
    bearerFormat: "JWT",
  });
  // The event catalogue, under `webhooks`.
  for (const webhook of eventWebhooks()) app.openAPIRegistry.registerWebhook(webhook);
  // The document is made once, on first request, from the routes' zod schemas.
  let doc: string | undefined;
  app.get("/openapi.json", (c) => {
    doc ??= JSON.stringify(openApiDocument(app, services.config.publicUrl));
    return c.body(doc, 200, { "content-type": "application/json; charset=utf-8" });
  });

  app.notFound((c) => notFoundOr405(app, c));
  app.onError(onError);
  // The DID routes' door first: it answers every request of those routes (and declines the rest,
  // e.g. a POST, which the router answers 405). Should it fail unexpectedly, the router answers
  // through the same pipeline, where `onError` makes the 500. `app.request` calls `app.fetch`, so
  // tests see the same composition as the server.
  const routed = app.fetch;
  const door = dids.door;
  app.fetch = (req, env, ctx) => {
    let res;
    try {
      res = door(req);
    } catch {
      return routed(req, env, ctx);
    }
    if (res === undefined) return routed(req, env, ctx);
    return res instanceof Promise ? res.catch(() => routed(req, env, ctx)) : res;
  };
  return app;
}

/**
 * The OpenAPI 3.1 document: `servers` (the public URL), and an `operationId` on every operation
 * (routes name theirs; any route that does not gets one made of its method and path).
 */
function openApiDocument(app: OpenAPIHono<AppEnv>, publicUrl: string) {
  const doc = app.getOpenAPI31Document({
    openapi: "3.1.0",
    info: {
      title: "SSI edge service",
      version: "1.0.0",
      description:
        "DID resolution, holder DIDComm agent, org agent configuration and signed webhooks. `webhooks` lists every event the service sends to an org's registered endpoint.",
    },
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

function notFoundOr405(app: OpenAPIHono<AppEnv>, c: Context<AppEnv>): Response {
  const path = c.req.path;
  const allowed = new Set<string>();
  for (const r of app.routes) {
    if (r.method === "ALL" || r.path === "*" || r.path === "/*") continue;
    const re = new RegExp(
      "^" +
        r.path.replace(/[.+?^${}()|[\]\\]/g, "\\$&").replace(/:[^/]+/g, "[^/]+").replace(
          /\*/g,
          ".*",
        ) + "/?$",
    );
    if (re.test(path)) allowed.add(r.method);
  }
  if (allowed.size > 0 && !allowed.has(c.req.method)) {
    return errorResponse(
      c,
      405,
      `${c.req.method} is not allowed on ${path}; use ${[...allowed].join(", ")}.`,
      {
        headers: { allow: [...allowed].join(", ") },
      },
    );
  }
  return errorResponse(c, 404, `No route for ${c.req.method} ${path}.`);
}
