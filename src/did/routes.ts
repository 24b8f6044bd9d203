/**
 * `GET /dids/{did}` (interface document 4.3, CONTRACT.md "DID resolution") and the Universal
 * Resolver HTTP API over the same resolver (`GET /1.0/identifiers/{didOrDidUrl}`, `/1.0/methods`,
 * `/1.0/testIdentifiers`, `/1.0/properties`; CONTRACT "Universal Resolver API and DID URL
 * dereferencing"). For a DID both prefixes answer the same; a DID URL is dereferenced
 * (`dereference.ts`).
 *
 * - The path segment is taken raw from the request URL (Hono would decode it): `did:web:a.com%3A3000`
 *   stays as written; a segment starting with `did%3A` is percent-decoded once first.
 * - The body is always a DidResolutionResult, except that a successful resolution asked for as a
 *   bare document (`application/did+json`, `application/did+ld+json`, `application/did`) is the
 *   document alone. Status by error code; 410 when deactivated; 406 for an unacceptable `Accept`.
 * - `Cache-Control`: results derived from the DID alone `max-age=86400, immutable`; cached network
 *   results their remaining freshness; failures `no-store`. `public` when resolution needs no token,
 *   otherwise `private` (a shared cache must not answer callers the service would refuse).
 * - Hot path: token check (cached by the verifier), memoized `Accept` answer, memo/LRU hit, and
 *   pre-serialized bytes; no KV read, no zod validation, no JSON serialization. When all of those
 *   are hits and the request is plain (no query, no `Cache-Control`), a fast lane answers before
 *   the router runs (`src/http/fast_lane.ts`); anything else takes the route below.
 */
import { createRoute, z } from "@hono/zod-openapi";
import type { Context } from "hono";
import type { OpenAPIHono } from "@hono/zod-openapi";
import {
  type AppEnv,
  createRouter,
  errorResponses,
  type FastLane,
  finishFastAnswer,
  requireBearer,
  type TokenVerifier,
} from "../http/mod.ts";
import {
  DEREFERENCING_PROFILE,
  type DerefRepresentation,
  negotiate,
  negotiateDereferencing,
  type Representation,
  RESOLUTION_PROFILE,
} from "./content_negotiation.ts";
import { DidAnswer, withServedFromCache } from "./answer.ts";
import {
  answerResponse,
  cacheControlFor,
  didFromUrl,
  maxAge as maxAgeAt,
  plainBearer,
  plainDidPathStart,
} from "./lite/mod.ts";
import type { CachingResolver } from "./cache.ts";
import { Lru } from "../lru.ts";
import { DEREF_ERRORS, dereference, type DerefError, VERSION_PARAMETERS } from "./dereference.ts";
import { DID_PREFIXES, didTargetOf } from "./did_url.ts";
import { DidDocumentSchema, DidResolutionResultSchema } from "./schemas.ts";
import { parseDidWithReason } from "./syntax.ts";
import { testIdentifiers } from "./test_identifiers.ts";
import { type DidVersion, resolutionError } from "./types.ts";

const NO_CACHE = /(?:^|[\s,])no-cache(?:$|[\s,=])/i;
const encoder = new TextEncoder();

/** `requireBearer` with a fast path for the common `Bearer <token>` (same result). */
function bearer(header: string | undefined): string {
  return plainBearer(header) ?? requireBearer(header);
}

function wantsNoCache(c: Context<AppEnv>): boolean {
  const cc = c.req.header("cache-control");
  return cc !== undefined && NO_CACHE.test(cc);
}

const resultContent = {
  "application/json": { schema: DidResolutionResultSchema },
  "application/did-resolution": { schema: DidResolutionResultSchema },
  [`application/ld+json;profile="${RESOLUTION_PROFILE}"`]: { schema: DidResolutionResultSchema },
};
const failure = (description: string) => ({ description, content: resultContent });

const dereferencingContent = {
  "application/did-url-dereferencing": { schema: DereferencingResultSchema() },
  [`application/ld+json;profile="${DEREFERENCING_PROFILE}"`]: {
    schema: DereferencingResultSchema(),
  },
};

function DereferencingResultSchema() {
  return z.object({
    dereferencingMetadata: z.record(z.string(), z.unknown()),
    contentStream: z.unknown(),
    contentMetadata: z.record(z.string(), z.unknown()),
  }).openapi("DereferencingResult");
}

const route = (isPublic: boolean, universal: boolean) =>
  createRoute({
    method: "get",
    path: universal ? "/1.0/identifiers/{identifier}" : "/dids/{did}",
    operationId: universal ? "resolveIdentifier" : "resolveDid",
    summary: universal
      ? "Resolve a DID or dereference a DID URL (Universal Resolver API)"
      : "Resolve a DID or dereference a DID URL",
    description: (universal
      ? "The DIF Universal Resolver API over the same resolver, cache and auth rule as `/dids`. "
      : "") +
      "Resolves did:key, did:jwk, did:peer (0, 2, 4), did:web, did:webvh, did:plc (from the " +
      "verified operation log of `DID_PLC_DIRECTORY_URL`) and, when configured, other methods " +
      "through a universal resolver. The path is taken raw (`did:web:example.com%3A3000` " +
      "stays as written); a path starting with `did%3A` is percent-decoded once. " +
      "A DID URL is dereferenced: the fragment arrives encoded (`%23key-1`), the DID parameters " +
      "encoded in the path or as the HTTP query (`?service=files&relativeRef=/a` answers 303). " +
      "`?noCache=true` or `Cache-Control: no-cache` bypasses and refreshes the cache.",
    tags: ["DID resolution"],
    ...(isPublic ? { security: [] } : {}),
    request: {
      params: z.object({
        [universal ? "identifier" : "did"]: z.string().openapi({
          param: { name: universal ? "identifier" : "did", in: "path" },
          example: "did:key:z6MkhaXgBZDvotDkL5257faiztiGiC2QtKLGpbnnEGta2doK",
        }),
      }),
      query: z.object({
        noCache: z.enum(["true", "false"]).optional(),
        service: z.string().optional(),
        relativeRef: z.string().optional(),
        versionId: z.string().optional(),
        versionTime: z.string().optional().openapi({
          description: "did:webvh and did:plc: the version in effect at this RFC 3339 time",
        }),
      }),
    },
    responses: {
      200: {
        description: "Resolved (the whole result, or the bare document for a document media " +
          "type), or dereferenced (the resource, or a dereferencing result when asked for).",
        content: {
          ...resultContent,
          "application/did+json": { schema: DidDocumentSchema },
          "application/did+ld+json": { schema: DidDocumentSchema },
          "application/did": { schema: DidDocumentSchema },
          ...dereferencingContent,
        },
      },
      303: { description: "A service with relativeRef: `Location` is the resolved URL." },
      400: failure("invalidDid, or invalidDidUrl for a DID URL"),
      404: failure("notFound"),
      406: failure("representationNotSupported: no acceptable media type"),
      410: failure("The DID is deactivated (didDocumentMetadata.deactivated)"),
      500: failure("internalError"),
      501: failure("methodNotSupported"),
      ...(isPublic ? {} : errorResponses(401)),
    },
  });

const infoRoute = (
  isPublic: boolean,
  path: string,
  operationId: string,
  summary: string,
  schema: z.ZodType,
) =>
  createRoute({
    method: "get",
    path,
    operationId,
    summary,
    tags: ["DID resolution"],
    ...(isPublic ? { security: [] } : {}),
    responses: {
      200: { description: summary, content: { "application/json": { schema } } },
      ...(isPublic ? {} : errorResponses(401)),
    },
  });

/** What the DID routes use. */
export interface DidRoutesDeps {
  resolver: CachingResolver;
  verifier: TokenVerifier;
  /** `DID_RESOLUTION_PUBLIC`: no token needed. */
  isPublic: boolean;
  now: () => number;
  /** Byte bound of the prepared responses of cached answers; default 2 MiB. */
  preparedBytes?: number;
  /** What `/1.0/methods`, `/1.0/testIdentifiers` and `/1.0/properties` report. */
  info?: {
    /** Methods resolved here, in order. */
    methods: readonly string[];
    /** `DID_TEST_IDENTIFIERS`. */
    testIdentifiers: readonly string[];
    ttlSeconds: number;
    /** `DID_CACHE_MAX_STALE_SECONDS`. */
    maxStaleSeconds?: number;
    fallbackConfigured: boolean;
  };
}

/** Entry and byte bounds of the prepared responses. */
const PREPARED_MAX = 10_000;
const PREPARED_BYTES = 2 * 1024 * 1024;
/** A Response object's own memory besides its body (headers, inner objects), roughly. */
const PREPARED_OVERHEAD = 1024;

interface PreparedSet {
  byRep: Map<Representation, { res: Response; age: number }>;
  weight: number;
}

const JSON_HEADERS = { "content-type": "application/json", "cache-control": "no-store" };

/** A DID whose path segment needs no decoding and is not a DID URL. */
const PLAIN_DID = /^did:[a-z0-9]+:[A-Za-z0-9._:-]+$/;

/** The DID resolution router and its fast lane (mount both with `createApp`). */
export function didRoutes(deps: DidRoutesDeps): { router: OpenAPIHono<AppEnv>; lane: FastLane } {
  const app = createRouter();
  const isPublic = deps.isPublic;
  const scope: "public" | "private" = isPublic ? "public" : "private";
  const maxAge = (answer: DidAnswer) => maxAgeAt(answer, deps.now);
  const cacheControl = (age: number) => cacheControlFor(age, scope);
  const notAcceptable = encoder.encode(JSON.stringify(withServedFromCache(
    resolutionError(
      "representationNotSupported",
      "None of the Accept media types is offered; use application/did-resolution, application/json, " +
        "application/did+json, application/did+ld+json or application/did.",
    ),
    false,
  )));

  const badEncoding = new DidAnswer(
    withServedFromCache(
      resolutionError("invalidDid", "The path segment is not valid percent-encoded UTF-8."),
      false,
    ),
    { kind: "none" },
  );

  const resolver = deps.resolver;
  // Prepared responses of answers served from the caches, cloned per request: building a Response
  // validates every header (about 1 µs each) and copies the body; a clone shares both. They hold
  // a copy of the answer's bytes, so they sit in their own small byte-bounded LRU (the hottest
  // answers only); an answer served for the first time gets a one-off Response. Rebuilt when the
  // max-age changes (cached network answers count it down, one second at a time).
  const prepared = new Lru<PreparedSet, DidAnswer>(PREPARED_MAX, {
    maxWeight: deps.preparedBytes ?? PREPARED_BYTES,
    weigh: (p) => p.weight,
  });

  /** The answer as a Response; `hit`: it came from a cache, so keep a prepared copy to clone. */
  function respond(answer: DidAnswer, rep: Representation, hit = false): Response {
    const age = maxAge(answer);
    let set = prepared.get(answer);
    const p = set?.byRep.get(rep);
    if (p !== undefined && p.age === age) return p.res.clone();
    if (!hit && set === undefined) return answerResponse(answer, rep, cacheControl(age));
    const res = answerResponse(answer, rep, cacheControl(age));
    set ??= { byRep: new Map(), weight: 0 };
    set.byRep.set(rep, { res, age });
    set.weight = (answer.weight + PREPARED_OVERHEAD) * set.byRep.size;
    prepared.set(answer, set);
    return res.clone();
  }

  function notAcceptableResponse(): Response {
    return new Response(notAcceptable, {
      status: 406,
      headers: { ...JSON_HEADERS, vary: "Accept" },
    });
  }

  /**
   * The fast lane: a plain `GET /dids/{did}` or `/1.0/identifiers/{did}` (one path segment, no
   * query, no `Cache-Control`) whose token and `Accept` answer are cached gets the route's answer
   * without the router: at once from the resolver's caches, or resolved (a plain DID the caches do
   * not hold). Declines (undefined) on anything else.
   */
  function lane(req: Request): Response | Promise<Response> | undefined {
    if (req.method !== "GET") return undefined;
    const url = req.url;
    const path = plainDidPathStart(url);
    if (path < 0) return undefined;
    const headers = req.headers;
    if (headers.has("cache-control")) return undefined;
    if (!isPublic) {
      const token = plainBearer(headers.get("authorization"));
      if (token === undefined || deps.verifier.peek(token) === undefined) return undefined;
    }
    const rep = negotiate(headers.get("accept") ?? undefined);
    if (rep === null) return undefined;
    const did = didFromUrl(url);
    if (did === undefined) return undefined;
    const given = headers.get("x-request-id");
    const answer = resolver.peek(did);
    // A hit takes no measurable time (its log line says 0 ms): no clock read.
    if (answer !== undefined) return finishFastAnswer(respond(answer, rep, true), given, url, path);
    const t0 = performance.now();
    // A miss on a plain DID (no percent-encoding, fragment, query or path: the route would read
    // the same DID): the route would resolve and answer just so, and the router and its middleware
    // add nothing to it. Wallets meet new did:key and did:peer values all the time.
    if (!PLAIN_DID.test(did)) return undefined;
    return resolver.resolveAnswer(did).then((a) =>
      finishFastAnswer(respond(a, rep), given, url, path, t0)
    );
  }

  async function authorize(c: Context<AppEnv>): Promise<void> {
    if (!isPublic) await deps.verifier.verify(bearer(c.req.header("authorization")));
  }

  /** `GET {prefix}{didOrDidUrl}`. */
  async function handle(c: Context<AppEnv>, prefix: string): Promise<Response> {
    await authorize(c);
    const url = c.req.url;
    const pathStart = url.indexOf("/", url.indexOf("//") + 2);
    const target = didTargetOf(url, pathStart + prefix.length);
    const accept = c.req.header("accept");
    if (target === undefined || target.plain) {
      const rep = negotiate(accept);
      if (rep === null) return notAcceptableResponse();
      if (target === undefined) return respond(badEncoding, rep);
      const did = target.didUrl;
      const noCache = target.noCache || wantsNoCache(c);
      if (!noCache) {
        const hit = resolver.peek(did);
        if (hit !== undefined) return respond(hit, rep, true);
      }
      return respond(await resolver.resolveAnswer(did, { noCache }), rep);
    }
    return await dereferenceUrl(target.didUrl, accept, target.noCache || wantsNoCache(c));
  }

  /** A DID URL: resolve its DID (at the asked version), then dereference. */
  async function dereferenceUrl(
    didUrl: string,
    accept: string | undefined,
    noCache: boolean,
  ): Promise<Response> {
    const rep = negotiateDereferencing(accept);
    if (rep === null) {
      return derefFailure(
        { kind: "result", contentType: "application/json" },
        "representationNotSupported",
        "None of the Accept media types is offered for a DID URL; use " +
          "application/did-url-dereferencing, application/did+ld+json, application/json or " +
          "text/uri-list.",
      );
    }
    const parsed = parseDidWithReason(didUrl);
    if (!parsed.ok) {
      const didPart = didUrl.slice(0, didEnd(didUrl));
      const keyword: DerefError = parseDidWithReason(didPart).ok ? "invalidDidUrl" : "invalidDid";
      return derefFailure(
        rep,
        keyword,
        `${clip(didUrl)} is not a valid ${
          keyword === "invalidDid" ? "DID" : "DID URL"
        }: ${parsed.message}.`,
      );
    }
    const p = parsed.value;
    const params = new URLSearchParams(p.query ?? "");
    let version: DidVersion | undefined;
    let onlyVersion = true;
    for (const [name, value] of params) {
      if ((VERSION_PARAMETERS as readonly string[]).includes(name)) {
        (version ??= {})[name as keyof DidVersion] = value;
      } else onlyVersion = false;
    }
    const answer = await resolver.resolveAnswer(p.did, { noCache, version });
    if (onlyVersion && p.path === undefined && p.fragment === undefined) {
      // A DID with version parameters only is a resolution, answered like one unless the caller
      // asked for a dereferencing result.
      const resolutionRep = negotiate(accept);
      if (resolutionRep !== null && rep.kind !== "result") return respond(answer, resolutionRep);
    }
    const outcome = dereference(p, answer.result, { wantsUriList: rep.kind === "uri-list" });
    if (outcome.kind === "error") return derefFailure(rep, outcome.error, outcome.message);
    const cc = cacheControl(maxAge(answer));
    if (outcome.kind === "redirect") {
      return new Response(null, {
        status: 303,
        headers: { location: outcome.location, "cache-control": cc, vary: "Accept" },
      });
    }
    const servedFromCache = answer.servedFromCache;
    if (rep.kind === "result") {
      return new Response(
        JSON.stringify({
          dereferencingMetadata: { contentType: outcome.contentType, servedFromCache },
          contentStream: outcome.content,
          contentMetadata: outcome.contentMetadata,
        }),
        {
          status: outcome.status,
          headers: { "content-type": rep.contentType, "cache-control": cc, vary: "Accept" },
        },
      );
    }
    return new Response(JSON.stringify(outcome.content), {
      status: outcome.status,
      headers: {
        "content-type": (rep.kind === "resource" ? rep.contentType : undefined) ??
          outcome.contentType,
        "cache-control": cc,
        vary: "Accept",
      },
    });
  }

  function derefFailure(rep: DerefRepresentation, error: DerefError, message: string): Response {
    return new Response(
      JSON.stringify({
        dereferencingMetadata: { error, message },
        contentStream: null,
        contentMetadata: {},
      }),
      {
        status: DEREF_ERRORS[error],
        headers: {
          "content-type": rep.kind === "result" ? rep.contentType : "application/json",
          "cache-control": "no-store",
          vary: "Accept",
        },
      },
    );
  }

  app.openAPIRegistry.registerPath(route(isPublic, false));
  app.openAPIRegistry.registerPath(route(isPublic, true));
  for (const prefix of DID_PREFIXES) {
    app.get(`${prefix}*`, (c) => handle(c, prefix));
  }

  const info = deps.info;
  if (info !== undefined) {
    const examples = testIdentifiers(info.methods, info.testIdentifiers);
    const properties = {
      methods: [...info.methods],
      cache: {
        networkTtlSeconds: info.ttlSeconds,
        notFoundTtlSeconds: Math.min(30, info.ttlSeconds),
        networkMaxStaleSeconds: info.maxStaleSeconds ?? 0,
        deterministicMethods: "kept in memory; never change",
      },
      fallbackResolverConfigured: info.fallbackConfigured,
      resolutionPublic: isPublic,
      dereferencing: {
        fragments: true,
        parameters: ["service", "serviceType", "relativeRef", ...VERSION_PARAMETERS],
      },
    };
    const static200 = (body: unknown) => {
      const bytes = JSON.stringify(body);
      return async (c: Context<AppEnv>) => {
        await authorize(c);
        return new Response(bytes, { headers: JSON_HEADERS });
      };
    };
    app.openAPIRegistry.registerPath(infoRoute(
      isPublic,
      "/1.0/methods",
      "listMethods",
      "The DID methods this instance resolves",
      z.array(z.string()),
    ));
    app.openAPIRegistry.registerPath(infoRoute(
      isPublic,
      "/1.0/testIdentifiers",
      "listTestIdentifiers",
      "Example DIDs per method that resolve here without reaching another host",
      z.record(z.string(), z.array(z.string())),
    ));
    app.openAPIRegistry.registerPath(infoRoute(
      isPublic,
      "/1.0/properties",
      "resolverProperties",
      "The resolver's non-secret settings",
      z.record(z.string(), z.unknown()),
    ));
    app.get("/1.0/methods", static200(info.methods));
    app.get("/1.0/testIdentifiers", static200(examples));
    app.get("/1.0/properties", static200(properties));
  }
  return { router: app, lane };
}

/** Where the DID of a DID URL ends (its first `/`, `?` or `#`). */
function didEnd(didUrl: string): number {
  for (let i = 4; i < didUrl.length; i++) {
    const ch = didUrl[i];
    if (ch === "/" || ch === "?" || ch === "#") return i;
  }
  return didUrl.length;
}

function clip(s: string): string {
  return s.length > 120 ? s.slice(0, 117) + "..." : s;
}
