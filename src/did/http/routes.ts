/**
 * The DID routes: `GET /dids/{did}` (interface document 4.3, CONTRACT.md "DID resolution") and the
 * Universal Resolver HTTP API over the same resolver (`GET /1.0/identifiers/{didOrDidUrl}`,
 * `/1.0/methods`, `/1.0/testIdentifiers`, `/1.0/traits`, `/1.0/properties`; CONTRACT "Universal
 * Resolver API and DID URL dereferencing"). Every one of them is answered by `answerDid`
 * (`answer.ts`); this file gives it its dependencies (the token rule, dereferencing, the
 * documents) and returns it as the door the app puts in front of the router, with a router that
 * lists the same routes (OpenAPI, 405s) and answers through the same pipeline whatever reaches it.
 *
 * @module
 */
import { type OpenAPIHono, z } from "@hono/zod-openapi";
import { AppError } from "../../base/mod.ts";
import {
  type AppEnv,
  appErrorResponse,
  authenticate,
  createRouter,
  peekPrincipal,
  type TokenVerifier,
} from "../../http/mod.ts";
import { type AnswerAuth, type AnswerDid, type AnswerResolver, createAnswerDid } from "./answer.ts";
import { type CachingResolver, NOT_FOUND_TTL_SECONDS } from "../cache/cache.ts";
import { VERSION_PARAMETERS } from "../dereference.ts";
import { DID_PREFIXES } from "./did_url.ts";
import { documentRoute, resolveRoute } from "./route_docs.ts";
import { testIdentifiers } from "./test_identifiers.ts";
import type { DidMethod, DidTraits } from "../types.ts";
import type { Config } from "../../config/mod.ts";
import { createUrlAnswer } from "./url_answer.ts";

/** What the DID routes use. */
export interface DidRoutesDeps {
  resolver: CachingResolver & Pick<AnswerResolver, "jsonDocument">;
  verifier: TokenVerifier;
  /** `DID_RESOLUTION_PUBLIC`: no token needed. */
  isPublic: boolean;
  now: () => number;
  /** Byte bound of the prepared responses of cached answers; default 2 MiB. */
  preparedBytes?: number;
  /** What `/1.0/methods`, `/1.0/testIdentifiers`, `/1.0/traits` and `/1.0/properties` report. */
  info?: {
    /** Methods resolved here, in order. */
    methods: readonly string[];
    /** Each method's traits (`DidMethod.traits`); a method without: `{}`. */
    traits?: Readonly<Record<string, DidTraits>>;
    /** The plug-in drivers' non-secret settings by method (`DidMethod.properties`). */
    plugins?: Readonly<Record<string, unknown>>;
    /** `DID_TEST_IDENTIFIERS`. */
    testIdentifiers: readonly string[];
    ttlSeconds: number;
    /** `DID_CACHE_MAX_STALE_SECONDS`. */
    maxStaleSeconds?: number;
    fallbackConfigured: boolean;
  };
}

/** What `/1.0/*` reports of a resolver: its methods (their traits, plug-in settings). */
export function resolverInfo(
  resolver: { registry: { methods: ReadonlyMap<string, DidMethod> } },
  config: Pick<
    Config,
    "didTestIdentifiers" | "didCacheTtlSeconds" | "didCacheMaxStaleSeconds" | "universalResolverUrl"
  >,
): NonNullable<DidRoutesDeps["info"]> {
  const methods = [...resolver.registry.methods];
  return {
    methods: methods.map(([name]) => name),
    traits: Object.fromEntries(methods.flatMap(([name, m]) => m.traits ? [[name, m.traits]] : [])),
    plugins: Object.fromEntries(
      methods.flatMap(([name, m]) => m.properties ? [[name, m.properties]] : []),
    ),
    testIdentifiers: config.didTestIdentifiers,
    ttlSeconds: config.didCacheTtlSeconds,
    maxStaleSeconds: config.didCacheMaxStaleSeconds,
    fallbackConfigured: config.universalResolverUrl !== undefined,
  };
}

/**
 * The DID routes: `door`, the pipeline the app puts in front of its router, and `router`, the same
 * routes for the route table and the OpenAPI document (answered by the same pipeline, hosted).
 */
export function didRoutes(deps: DidRoutesDeps): { router: OpenAPIHono<AppEnv>; door: AnswerDid } {
  const { isPublic, verifier } = deps;
  // The DID routes' own rule (public, or any valid token), read the one way (`http/bearer.ts`).
  const auth: AnswerAuth = {
    peek: (authorization) => peekPrincipal(verifier, authorization),
    verify: (authorization) => authenticate(verifier, authorization),
    errorResponse(err, requestId, path) {
      return err instanceof AppError ? appErrorResponse(err, requestId, path) : undefined;
    },
  };
  const documents = new Map<string, Uint8Array>();
  const app = createRouter();
  const door = createAnswerDid({
    resolver: deps.resolver,
    isPublic,
    auth,
    dereference: createUrlAnswer({ resolver: deps.resolver, isPublic, now: deps.now }),
    documents,
    now: deps.now,
    preparedBytes: deps.preparedBytes,
  });
  const hosted = (c: { req: { raw: Request } }) => {
    const res = door(c.req.raw, true);
    if (res === undefined) throw new Error(`the DID pipeline declined ${c.req.raw.url}`);
    return res;
  };

  app.openAPIRegistry.registerPath(resolveRoute(isPublic, false));
  app.openAPIRegistry.registerPath(resolveRoute(isPublic, true));
  for (const prefix of DID_PREFIXES) app.get(`${prefix}*`, hosted);

  const info = deps.info;
  if (info !== undefined) {
    const add = (
      path: string,
      operationId: string,
      summary: string,
      schema: z.ZodType,
      body: unknown,
    ) => {
      app.openAPIRegistry.registerPath(documentRoute(isPublic, path, operationId, summary, schema));
      documents.set(path, new TextEncoder().encode(JSON.stringify(body)));
      app.get(path, hosted);
    };
    add(
      "/1.0/methods",
      "listMethods",
      "The DID methods this instance resolves",
      z.array(z.string()),
      info.methods,
    );
    add(
      "/1.0/testIdentifiers",
      "listTestIdentifiers",
      "Example DIDs per method that resolve here without reaching another host",
      z.record(z.string(), z.array(z.string())),
      testIdentifiers(info.methods, info.testIdentifiers),
    );
    add(
      "/1.0/traits",
      "listTraits",
      "The DID traits of each method this instance resolves (the Universal Resolver's shape)",
      z.record(z.string(), z.record(z.string(), z.boolean())),
      Object.fromEntries(info.methods.map((m) => [m, info.traits?.[m] ?? {}])),
    );
    add(
      "/1.0/properties",
      "resolverProperties",
      "The resolver's non-secret settings",
      z.record(z.string(), z.unknown()),
      {
        methods: [...info.methods],
        cache: {
          networkTtlSeconds: info.ttlSeconds,
          notFoundTtlSeconds: Math.min(NOT_FOUND_TTL_SECONDS, info.ttlSeconds),
          networkMaxStaleSeconds: info.maxStaleSeconds ?? 0,
          deterministicMethods: "kept in memory; never change",
        },
        fallbackResolverConfigured: info.fallbackConfigured,
        plugins: info.plugins ?? {},
        resolutionPublic: isPublic,
        dereferencing: {
          fragments: true,
          parameters: ["service", "serviceType", "relativeRef", ...VERSION_PARAMETERS],
        },
      },
    );
  }
  return { router: app, door };
}
