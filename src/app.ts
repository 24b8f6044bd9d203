/**
 * The HTTP app: the request middleware (request id, log line, body checks), CORS, bearer auth per
 * path prefix, the routers of every feature built from the services, the OpenAPI document,
 * 404/405 and one onError; in front of the router, the door of the DID routes (`answerDid`),
 * which answers them without the router's work.
 *
 * @module
 */
import { OpenAPIHono } from "@hono/zod-openapi";
import { agentRoutes } from "./agents/mod.ts";
import type { Services } from "./compose.ts";
import { storedCredentialRoutes } from "./credentials/mod.ts";
import { didRoutes, resolverInfo } from "./did/mod.ts";
import { didcommRoutes } from "./didcomm/mod.ts";
import {
  type AppEnv,
  bearerAuth,
  coreRoutes,
  type CoreRoutesDeps,
  corsFor,
  docsRoutes,
  noRoute,
  onError,
  requestMiddleware,
  requireOrg,
  serveOpenApi,
  wrongMethod,
} from "./http/mod.ts";
import { issueCredentialRoutes } from "./issue_credential/mod.ts";
import { openid4vcRoutes } from "./openid4vci/mod.ts";
import { openid4vpRoutes } from "./openid4vp/mod.ts";
import { proofRoutes } from "./present_proof/mod.ts";
import { webRoutes } from "./web/mod.ts";
import { eventWebhooks, webhookRoutes } from "./webhooks/mod.ts";

/** Options of the app. */
export interface AppOptions {
  /** Extra routers for tests (mounted after the features). */
  extraRoutes?: OpenAPIHono<AppEnv>[];
  /**
   * The readiness check of `GET /health/ready` (the process's own: `boot/` makes it for the
   * service, tests make it with `readinessCheck(services)`).
   */
  ready: CoreRoutesDeps["ready"];
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

/** Builds the Hono app from the services. */
export function createApp(services: Services, opts: AppOptions): OpenAPIHono<AppEnv> {
  const { config, verifier } = services;
  const app = new OpenAPIHono<AppEnv>();
  app.use("*", requestMiddleware());
  app.use("*", wrongMethod(app));
  // Cross-origin calls from the CORS_ORIGINS pages (before auth: a preflight carries no token).
  const cors = corsFor(config.corsOrigins);
  if (cors) app.use("*", cors);
  // Bearer auth once per path prefix; org routes also need a role in the org of their path.
  const auth = bearerAuth({ verifier });
  for (const prefix of BEARER_PREFIXES) app.use(prefix, auth);
  app.use("/orgs/:orgId/*", requireOrg("member"));
  app.use("/orgs/:orgId/agents/*", requireOrg("admin"));

  app.route("/", coreRoutes({ ready: opts.ready }));
  const dids = didRoutes({
    resolver: services.resolver,
    verifier,
    isPublic: config.didResolutionPublic,
    now: services.now,
    info: resolverInfo(services.resolver, config),
  });
  app.route("/", dids.router);
  app.route(
    "/",
    agentRoutes({
      agents: services.agents,
      requireHttps: config.outbound.requireHttps,
      trustProxyHeaders: config.trustProxyHeaders,
    }),
  );
  app.route("/", didcommRoutes({ didcomm: services.didcomm }));
  app.route("/", webhookRoutes({ webhooks: services.webhooks }));
  app.route("/", issueCredentialRoutes({ holder: services.holder }));
  app.route("/", openid4vcRoutes({ openid4vc: services.openid4vc }));
  app.route("/", openid4vpRoutes({ openid4vp: services.openid4vp }));
  app.route("/", storedCredentialRoutes({ credentials: services.credentials }));
  app.route("/", proofRoutes({ prover: services.prover }));
  for (const extra of opts.extraRoutes ?? []) app.route("/", extra);
  app.route("/", docsRoutes());
  app.route("/", webRoutes());

  // The event catalogue goes under `webhooks` of the OpenAPI document.
  for (const webhook of eventWebhooks()) app.openAPIRegistry.registerWebhook(webhook);
  serveOpenApi(app, config.publicUrl, {
    title: "SSI edge service",
    version: "1.0.0",
    description:
      "DID resolution, holder DIDComm agent, org agent configuration and signed webhooks. `webhooks` lists every event the service sends to an org's registered endpoint.",
  });

  app.notFound(noRoute);
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
