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
 *   pre-serialized bytes; no KV read, no zod validation, no JSON serialization.
 */
import { createRoute, z } from "@hono/zod-openapi";
import type { Context } from "hono";
import { errorResponses } from "../core_routes.ts";
import type { AppDeps } from "../deps.ts";
import { requireBearer } from "../http/auth.ts";
import type { AppEnv } from "../http/env.ts";
import { createRouter } from "../http/router.ts";
import { negotiate, type Representation, RESOLUTION_PROFILE } from "./accept.ts";
import { DidAnswer, withServedFromCache } from "./answer.ts";
import { didResolverFor } from "./mod.ts";
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

/** `requireBearer` with a fast path for the common `Bearer <token>` (same result, no regex). */
function bearer(header: string | undefined): string {
  if (
    header !== undefined && header.length > 7 && header.startsWith("Bearer ") &&
    header.indexOf(" ", 7) === -1
  ) {
    return header.slice(7);
  }
  return requireBearer(header);
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

/** The DID resolution feature router. */
export function didRoutes(deps: AppDeps) {
  const app = createRouter();
  const isPublic = deps.config.didResolutionPublic;
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

  function cacheControl(answer: DidAnswer): string {
    const f = answer.freshness;
    if (f.kind === "immutable") return immutable;
    if (f.kind === "until") {
      const left = Math.max(0, Math.floor((f.expiresAt - deps.now()) / 1000));
      return `${scope}, max-age=${left}`;
    }
    return "no-store";
  }

  const resolver = didResolverFor(deps);
  // Prepared responses per answer and representation, cloned per request: building a Response
  // validates every header (about 1 µs each); a clone copies them. Rebuilt when the
  // Cache-Control value changes (cached network answers count their max-age down).
  const prepared = new WeakMap<DidAnswer, Map<Representation, Response>>();

  function respond(answer: DidAnswer, rep: Representation): Response {
    const cc = cacheControl(answer);
    let byRep = prepared.get(answer);
    let res = byRep?.get(rep);
    if (res === undefined || res.headers.get("cache-control") !== cc) {
      let body: Uint8Array;
      let contentType: string;
      if (answer.status === 200 && rep.kind === "document") {
        body = answer.documentBytes();
        contentType = rep.contentType;
      } else {
        body = answer.resultBytes();
        contentType = rep.kind === "result" ? rep.contentType : "application/json";
      }
      res = new Response(body as Uint8Array<ArrayBuffer>, {
        status: answer.status,
        headers: { "content-type": contentType, "cache-control": cc, vary: "Accept" },
      });
      if (byRep === undefined) prepared.set(answer, byRep = new Map());
      byRep.set(rep, res);
    }
    return res.clone();
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
  return app;
}
