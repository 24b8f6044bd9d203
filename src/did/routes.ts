/**
 * `GET /dids/{did}` (interface document 4.3, CONTRACT.md "DID resolution").
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
  logRequest,
  requestIdFrom,
  requireBearer,
  type TokenVerifier,
} from "../http/mod.ts";
import { negotiate, type Representation, RESOLUTION_PROFILE } from "./content_negotiation.ts";
import { DidAnswer, withServedFromCache } from "./answer.ts";
import type { CachingResolver } from "./cache.ts";
import { DidDocumentSchema, DidResolutionResultSchema } from "./schemas.ts";
import { resolutionError } from "./types.ts";

const IMMUTABLE_SECONDS = 86400;
const NO_CACHE = /(?:^|[\s,])no-cache(?:$|[\s,=])/i;
const encoder = new TextEncoder();

/** The DID from the raw request URL (last path segment), per the contract's raw path rule. */
export function didFromUrl(url: string): string | undefined {
  const pathStart = url.indexOf("/", url.indexOf("//") + 2);
  let end = url.indexOf("?", pathStart);
  if (end < 0) end = url.length;
  const hash = url.indexOf("#", pathStart);
  if (hash >= 0 && hash < end) end = hash;
  const segment = url.slice(url.lastIndexOf("/", end - 1) + 1, end);
  if (segment.length >= 6 && segment.slice(0, 6).toLowerCase() === "did%3a") {
    try {
      return decodeURIComponent(segment);
    } catch {
      return undefined;
    }
  }
  return segment;
}

/** The token of the common `Bearer <token>` form, else undefined (no regex). */
function plainBearer(header: string | null | undefined): string | undefined {
  return header != null && header.length > 7 && header.startsWith("Bearer ") &&
      header.indexOf(" ", 7) === -1
    ? header.slice(7)
    : undefined;
}

/** `requireBearer` with a fast path for the common `Bearer <token>` (same result). */
function bearer(header: string | undefined): string {
  return plainBearer(header) ?? requireBearer(header);
}

function wantsNoCache(c: Context<AppEnv>, url: string): boolean {
  if (url.includes("?") && c.req.query("noCache") === "true") return true;
  const cc = c.req.header("cache-control");
  return cc !== undefined && NO_CACHE.test(cc);
}

const resultContent = {
  "application/json": { schema: DidResolutionResultSchema },
  "application/did-resolution": { schema: DidResolutionResultSchema },
  [`application/ld+json;profile="${RESOLUTION_PROFILE}"`]: { schema: DidResolutionResultSchema },
};
const failure = (description: string) => ({ description, content: resultContent });

const route = (isPublic: boolean) =>
  createRoute({
    method: "get",
    path: "/dids/{did}",

    operationId: "resolveDid",
    summary: "Resolve a DID",
    description:
      "Resolves did:key, did:jwk, did:peer (0, 2, 4), did:web and, when configured, other methods " +
      "through a universal resolver. The path segment is taken raw (`did:web:example.com%3A3000` " +
      "stays as written); a segment starting with `did%3A` is percent-decoded once. " +
      "`?noCache=true` or `Cache-Control: no-cache` bypasses and refreshes the cache.",
    tags: ["DID resolution"],
    ...(isPublic ? { security: [] } : {}),
    request: {
      params: z.object({
        did: z.string().openapi({
          param: { name: "did", in: "path" },
          example: "did:key:z6MkhaXgBZDvotDkL5257faiztiGiC2QtKLGpbnnEGta2doK",
        }),
      }),
      query: z.object({ noCache: z.enum(["true", "false"]).optional() }),
    },
    responses: {
      200: {
        description: "Resolved. The whole result, or the bare document for a document media type.",
        content: {
          ...resultContent,
          "application/did+json": { schema: DidDocumentSchema },
          "application/did+ld+json": { schema: DidDocumentSchema },
          "application/did": { schema: DidDocumentSchema },
        },
      },
      400: failure("invalidDid"),
      404: failure("notFound"),
      406: failure("representationNotSupported: no acceptable media type"),
      410: failure("The DID is deactivated (didDocumentMetadata.deactivated)"),
      500: failure("internalError"),
      501: failure("methodNotSupported"),
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
}

/** The DID resolution router and its fast lane (mount both with `createApp`). */
export function didRoutes(deps: DidRoutesDeps): { router: OpenAPIHono<AppEnv>; lane: FastLane } {
  const app = createRouter();
  const isPublic = deps.isPublic;
  const scope = isPublic ? "public" : "private";
  const immutable = `${scope}, max-age=${IMMUTABLE_SECONDS}, immutable`;
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

  /** Seconds of freshness left to announce: -1 immutable, -2 none (no-store), else max-age. */
  function maxAge(answer: DidAnswer): number {
    const f = answer.freshness;
    if (f.kind === "immutable") return -1;
    if (f.kind === "until") return Math.max(0, Math.floor((f.expiresAt - deps.now()) / 1000));
    return -2;
  }

  function cacheControl(age: number): string {
    return age === -1 ? immutable : age === -2 ? "no-store" : `${scope}, max-age=${age}`;
  }

  const resolver = deps.resolver;
  // Prepared responses per answer and representation, cloned per request: building a Response
  // validates every header (about 1 µs each); a clone copies them. Rebuilt when the max-age
  // changes (cached network answers count it down, one second at a time).
  const prepared = new WeakMap<DidAnswer, Map<Representation, { res: Response; age: number }>>();

  function respond(answer: DidAnswer, rep: Representation): Response {
    const age = maxAge(answer);
    let byRep = prepared.get(answer);
    let p = byRep?.get(rep);
    if (p === undefined || p.age !== age) {
      let body: Uint8Array;
      let contentType: string;
      if (answer.status === 200 && rep.kind === "document") {
        body = answer.documentBytes();
        contentType = rep.contentType;
      } else {
        body = answer.resultBytes();
        contentType = rep.kind === "result" ? rep.contentType : "application/json";
      }
      const res = new Response(body as Uint8Array<ArrayBuffer>, {
        status: answer.status,
        headers: {
          "content-type": contentType,
          "cache-control": cacheControl(age),
          vary: "Accept",
        },
      });
      p = { res, age };
      if (byRep === undefined) prepared.set(answer, byRep = new Map());
      byRep.set(rep, p);
    }
    return p.res.clone();
  }
  /**
   * The fast lane: a plain `GET /dids/{did}` (one path segment, no query, no `Cache-Control`)
   * whose token, `Accept` answer and resolution are all cached gets the route's answer without
   * the router. Declines (undefined) on anything else.
   */
  function lane(req: Request): Response | undefined {
    if (req.method !== "GET") return undefined;
    const url = req.url;
    const path = url.indexOf("/", url.indexOf("//") + 2);
    if (
      !url.startsWith("/dids/", path) || url.indexOf("/", path + 6) >= 0 ||
      url.indexOf("?", path) >= 0
    ) {
      return undefined;
    }
    const headers = req.headers;
    if (headers.has("cache-control")) return undefined;
    if (!isPublic) {
      const token = plainBearer(headers.get("authorization"));
      if (token === undefined || deps.verifier.peek(token) === undefined) return undefined;
    }
    const rep = negotiate(headers.get("accept") ?? undefined);
    if (rep === null) return undefined;
    const did = didFromUrl(url);
    const answer = did === undefined ? undefined : resolver.peek(did);
    if (answer === undefined) return undefined;
    const t0 = performance.now();
    const id = requestIdFrom(headers.get("x-request-id"));
    const res = respond(answer, rep);
    res.headers.set("x-request-id", id);
    logRequest(id, "GET", url.slice(path), res.status, t0);
    return res;
  }

  app.openAPIRegistry.registerPath(route(isPublic));
  app.get("/dids/:did", async (c) => {
    if (!isPublic) await deps.verifier.verify(bearer(c.req.header("authorization")));
    const rep = negotiate(c.req.header("accept"));
    if (rep === null) {
      return new Response(notAcceptable, {
        status: 406,
        headers: {
          "content-type": "application/json",
          "cache-control": "no-store",
          vary: "Accept",
        },
      });
    }
    const url = c.req.url;
    const did = didFromUrl(url);
    let answer: DidAnswer;
    if (did === undefined) answer = badEncoding;
    else if (wantsNoCache(c, url)) answer = await resolver.resolveAnswer(did, { noCache: true });
    else answer = resolver.peek(did) ?? await resolver.resolveAnswer(did);
    return respond(answer, rep);
  });
  return { router: app, lane };
}
