/**
 * `answerDid`: the one way a request to `/dids/…` or `/1.0/…` is answered, whichever entrance it
 * comes through — the early lane (`lite.ts`, before the app loads), the door in front of the
 * router (`src/app.ts`) and the Hono routes (`routes.ts`, for what reaches the router):
 * parse → authorize → resolve through the cache → negotiate → encode → log.
 *
 * An entrance may only call it with less around it: without a dependency (token checks, waiting
 * for the resolver, dereferencing, the resolver's documents) the pipeline declines (undefined)
 * what would need it, and the request goes on to the next entrance. The Hono routes call it
 * `hosted`: the app's middleware and `onError` then write the request id, the log line and errors.
 *
 * CONTRACT "DID resolution": the path segment is taken raw (`did_url.ts`); the body is always a
 * DidResolutionResult, except that a resolved DID asked for as a bare document (`Accept`,
 * `content_negotiation.ts`) is the document alone; status by error code, 410 when deactivated, 406
 * for an unacceptable `Accept`. `Cache-Control`: results derived from the DID alone
 * `max-age=86400, immutable`, cached network results their remaining freshness, failures
 * `no-store`; `public` when resolution needs no token, else `private` (a shared cache must not
 * answer callers the service would refuse). Any web origin may call (`*`, no credentials), and a
 * preflight needs no token.
 *
 * Warm path: a token the verifier has seen, a memoized `Accept` answer, a resolution held in
 * memory, and a prepared Response cloned (building one validates every header, about 1 µs each,
 * and copies the body; a clone shares both). No clock read unless the answer's max-age counts
 * down, no request id unless asked for or logged.
 *
 * @module
 */
import { logRequest, requestIdFrom, requestLogged } from "../http/lite.ts";
import { Lru } from "../lru.ts";
import type { ResolveOptions } from "./cache.ts";
import { negotiate, type Representation } from "./content_negotiation.ts";
import { didTargetOf } from "./did_url.ts";
import {
  type DidResolutionErrorCode,
  type DidResolutionResult,
  type Freshness,
  type Resolution,
  resolutionError,
  withServedFromCache,
} from "./types.ts";

/** `Cache-Control` max-age of answers derived from the DID alone. */
export const IMMUTABLE_SECONDS = 86400;

/** What the pipeline resolves with (the caching resolver, or a lane's smaller one). */
export interface AnswerResolver {
  /** A resolution at once, from memory (or derived on the spot), else undefined. */
  peek(did: string): Resolution | undefined;
  /** Resolution that may wait for I/O; absent: only what `peek` gives is answered. */
  lookup?(did: string, options?: ResolveOptions): Promise<Resolution>;
}

/** The token rule of resolution (unless `DID_RESOLUTION_PUBLIC`), given by the HTTP layer. */
export interface AnswerAuth {
  /** The caller of a token verified before, at once; undefined when it must be verified. */
  peek(authorization: string | null): unknown;
  /** Verifies the `Authorization` header; rejects with the error to answer (401, 503). */
  verify(authorization: string | null): Promise<unknown>;
  /** The answer to an error `verify` rejected with; undefined for an unexpected one. */
  errorResponse(err: unknown, requestId: string, path: string): Response | undefined;
}

/** What `createAnswerDid` builds the pipeline from. */
export interface AnswerDeps {
  resolver: AnswerResolver;
  /** `DID_RESOLUTION_PUBLIC`: no token needed. */
  isPublic: boolean;
  /** Token checks; absent: only public resolution is answered. */
  auth?: AnswerAuth;
  /** DID URL dereferencing (`url_answer.ts`); absent: DID URLs are declined. */
  dereference?: (didUrl: string, accept: string | undefined, noCache: boolean) => Promise<Response>;
  /** JSON documents by path (`/1.0/methods`, …), answered under the same token rule. */
  documents?: ReadonlyMap<string, Uint8Array>;
  /** Clock, ms since epoch (read only for answers that count their max-age down). */
  now: () => number;
  /** Byte bound of the prepared responses; default 2 MiB. */
  preparedBytes?: number;
}

/**
 * Answers a request of the DID routes (a promise when it has to wait), or declines with undefined
 * (not a DID route, or a step this pipeline was given no dependency for). `hosted`: inside the
 * router, whose middleware writes the request id and log line.
 */
export type AnswerDid = (
  req: Request,
  hosted?: boolean,
) => Response | Promise<Response> | undefined;

/** Headers every DID answer carries (CONTRACT: any origin, no credentials). */
export const CORS_HEADERS = { "access-control-allow-origin": "*" } as const;

/** The headers of a DID answer: its type, its reuse, and the CORS and `Vary` it always has. */
export function answerHeaders(contentType: string, cacheControl: string): Record<string, string> {
  return {
    "content-type": contentType,
    "cache-control": cacheControl,
    vary: "Accept",
    ...CORS_HEADERS,
  };
}

const PREFLIGHT: ResponseInit = {
  status: 204,
  headers: {
    ...CORS_HEADERS,
    "access-control-allow-methods": "GET",
    "access-control-allow-headers": "Authorization, Accept",
    "access-control-max-age": "86400",
  },
};

const STATUS: Record<DidResolutionErrorCode, number> = {
  invalidDid: 400,
  invalidDidUrl: 400,
  notFound: 404,
  representationNotSupported: 406,
  methodNotSupported: 501,
  internalError: 500,
};

/** HTTP status of a result (CONTRACT.md "DID resolution"); unknown error codes are 500. */
export function statusOf(result: DidResolutionResult): number {
  const error = result.didResolutionMetadata.error;
  if (error !== undefined) return STATUS[error] ?? 500;
  if (result.didDocumentMetadata.deactivated === true) return 410;
  return 200;
}

/**
 * Seconds of reuse to announce: -1 immutable, -2 none (no-store), else the max-age. The clock is
 * read only for an answer that counts down.
 */
export function maxAge(freshness: Freshness, now: () => number): number {
  if (freshness.kind === "immutable") return -1;
  if (freshness.kind === "until") {
    return Math.max(0, Math.floor((freshness.expiresAt - now()) / 1000));
  }
  return -2;
}

/** `Cache-Control` for a `maxAge`; `scope` is `public` when resolution needs no token. */
export function cacheControlFor(age: number, scope: "public" | "private"): string {
  return age === -1
    ? `${scope}, max-age=${IMMUTABLE_SECONDS}, immutable`
    : age === -2
    ? "no-store"
    : `${scope}, max-age=${age}`;
}

const encoder = new TextEncoder();
// deno-lint-ignore no-control-regex
const ASCII = /^[\x00-\x7f]*$/;
/** `{"didDocument":` : the encoded result starts with the document. */
const DOC_START = 15;

/** A result's JSON bytes, document first, so that the bare document is a view into them. */
interface Encoded {
  bytes: Uint8Array;
  /** End of the document inside `bytes`; 0 when the answer has no document to give. */
  docEnd: number;
}

function encode(result: DidResolutionResult): Encoded {
  const doc = result.didDocument === null ? "null" : JSON.stringify(result.didDocument);
  const rest = JSON.stringify({
    didDocumentMetadata: result.didDocumentMetadata,
    didResolutionMetadata: result.didResolutionMetadata,
  });
  const bytes = encoder.encode(`{"didDocument":${doc},${rest.slice(1)}`);
  const ok = result.didDocument !== null && result.didResolutionMetadata.error === undefined;
  const restBytes = ASCII.test(rest) ? rest.length : encoder.encode(rest).length;
  return { bytes, docEnd: ok ? bytes.length - restBytes : 0 };
}

/** The Response of a result in a representation (the bare document only for a 200). */
function resultResponse(
  status: number,
  enc: Encoded,
  rep: Representation,
  cacheControl: string,
): Response {
  const bare = status === 200 && rep.kind === "document";
  const body = bare ? enc.bytes.subarray(DOC_START, enc.docEnd) : enc.bytes;
  const contentType = bare || rep.kind === "result" ? rep.contentType : "application/json";
  return new Response(body as Uint8Array<ArrayBuffer>, {
    status,
    headers: answerHeaders(contentType, cacheControl),
  });
}

/** A one-off Response of a resolution in a representation (nothing prepared or kept). */
export function resolutionResponse(
  r: Resolution,
  rep: Representation,
  scope: "public" | "private",
  now: () => number,
): Response {
  const cc = cacheControlFor(maxAge(r.freshness, now), scope);
  return resultResponse(statusOf(r.result), encode(r.result), rep, cc);
}

const NONE = { kind: "none" } as const;
const JSON_REP: Representation = { kind: "result", contentType: "application/json" };
const NOT_ACCEPTABLE: Resolution = {
  result: withServedFromCache(
    resolutionError(
      "representationNotSupported",
      "None of the Accept media types is offered; use application/did-resolution, " +
        "application/json, application/did+json, application/did+ld+json or application/did.",
    ),
    false,
  ),
  freshness: NONE,
  source: "local",
};
const BAD_ENCODING: Resolution = {
  result: withServedFromCache(
    resolutionError("invalidDid", "The path segment is not valid percent-encoded UTF-8."),
    false,
  ),
  freshness: NONE,
  source: "local",
};
const NO_CACHE = /(?:^|[\s,])no-cache(?:$|[\s,=])/i;

/** Entry bound of the prepared responses; a Response object's own memory besides its body. */
const PREPARED_MAX = 10_000;
const PREPARED_BYTES = 2 * 1024 * 1024;
const RESPONSE_BYTES = 1024;

/** The prepared Responses of one resolution, per representation, with its encoding. */
interface Prepared {
  enc: Encoded;
  byRep: Map<Representation, { res: Response; age: number }>;
  weight: number;
}

/** Builds the pipeline (see the module doc). */
export function createAnswerDid(deps: AnswerDeps): AnswerDid {
  const { resolver, auth, documents, now } = deps;
  const scope = deps.isPublic ? "public" : "private";
  // Prepared responses of resolutions served from memory, cloned per request. They hold a copy of
  // the bytes, so they sit in their own small byte-bounded Lru (the hottest answers only); a
  // resolution served for the first time gets a one-off Response. Rebuilt when the max-age
  // changes (cached network answers count it down, one second at a time).
  const prepared = new Lru<Prepared, Resolution>(PREPARED_MAX, {
    maxWeight: deps.preparedBytes ?? PREPARED_BYTES,
    weigh: (p) => p.weight,
  });

  /** The Response of a resolution; `hit`: it came from memory, so keep a prepared copy. */
  function respond(r: Resolution, rep: Representation, hit = false): Response {
    const age = maxAge(r.freshness, now);
    let set = prepared.get(r);
    const p = set?.byRep.get(rep);
    if (p !== undefined && p.age === age) return p.res.clone();
    const status = statusOf(r.result);
    if (!hit && set === undefined) {
      return resultResponse(status, encode(r.result), rep, cacheControlFor(age, scope));
    }
    set ??= { enc: encode(r.result), byRep: new Map(), weight: 0 };
    const res = resultResponse(status, set.enc, rep, cacheControlFor(age, scope));
    set.byRep.set(rep, { res, age });
    set.weight = set.enc.bytes.length * (1 + set.byRep.size) + RESPONSE_BYTES * set.byRep.size;
    prepared.set(r, set);
    return res.clone();
  }

  /** The request id and log line (unless hosted); a HEAD request gets the headers only. */
  function finish(
    req: Request,
    res: Response,
    path: number,
    hosted: boolean,
    t0?: number,
    id?: string,
  ): Response {
    if (req.method === "HEAD") res = new Response(null, res);
    if (hosted) return res;
    const logged = requestLogged(res.status);
    const given = req.headers.get("x-request-id");
    if (given === null && !logged && id === undefined) return res;
    const requestId = id ?? requestIdFrom(given);
    res.headers.set("x-request-id", requestId);
    if (logged) logRequest(requestId, req.method, req.url.slice(path), res.status, t0);
    return res;
  }

  /** Writes the request id and log line of an answer; `t0`: when its work began. */
  type Done = (res: Response, t0?: number) => Response;

  /**
   * Everything after the token rule, each answer finished by `done`; undefined when a step has no
   * dependency here. `t0`: when the work began, if it already has (a token being verified).
   */
  function authorized(
    req: Request,
    didStart: number,
    doc: Uint8Array | undefined,
    done: Done,
    t0?: number,
  ): Response | Promise<Response> | undefined {
    if (doc !== undefined) {
      return done(
        new Response(doc as Uint8Array<ArrayBuffer>, {
          headers: {
            "content-type": "application/json",
            "cache-control": "no-store",
            ...CORS_HEADERS,
          },
        }),
        t0,
      );
    }
    const headers = req.headers;
    const accept = headers.get("accept") ?? undefined;
    const target = didTargetOf(req.url, didStart);
    const cc = headers.get("cache-control");
    const noCache = cc !== null && NO_CACHE.test(cc);
    if (target !== undefined && !target.plain) {
      if (deps.dereference === undefined) return undefined;
      t0 ??= performance.now();
      return deps.dereference(target.didUrl, accept, target.noCache || noCache)
        .then((res) => done(res, t0));
    }
    const rep = negotiate(accept);
    if (rep === null) return done(respond(NOT_ACCEPTABLE, JSON_REP), t0);
    if (target === undefined) return done(respond(BAD_ENCODING, rep), t0);
    const did = target.didUrl;
    if (!target.noCache && !noCache) {
      // A hit takes no measurable time (its log line says 0 ms): no clock read.
      const hit = resolver.peek(did);
      if (hit !== undefined) return done(respond(hit, rep, true), t0);
    }
    if (resolver.lookup === undefined) return undefined;
    t0 ??= performance.now();
    return resolver.lookup(did, { noCache: target.noCache || noCache })
      .then((r) => done(respond(r, rep), t0));
  }

  return (req, hosted = false) => {
    const url = req.url;
    const path = url.indexOf("/", url.indexOf("//") + 2);
    let didStart = -1;
    let doc: Uint8Array | undefined;
    if (url.startsWith("/dids/", path)) didStart = path + 6;
    else if (url.startsWith("/1.0/identifiers/", path)) didStart = path + 17;
    else if (url.startsWith("/1.0/", path) && documents !== undefined) {
      const q = url.indexOf("?", path);
      doc = documents.get(url.slice(path, q < 0 ? undefined : q));
      if (doc === undefined) return undefined;
    } else return undefined;
    const method = req.method;
    if (method === "OPTIONS") return finish(req, new Response(null, PREFLIGHT), path, hosted);
    if (method !== "GET" && method !== "HEAD") return undefined;

    const done: Done = (res, t0) => finish(req, res, path, hosted, t0);
    if (!deps.isPublic) {
      if (auth === undefined) return undefined;
      const authorization = req.headers.get("authorization");
      if (auth.peek(authorization) === undefined) {
        const t0 = performance.now();
        return auth.verify(authorization).then(
          async () => {
            const res = await authorized(req, didStart, doc, done, t0);
            if (res === undefined) throw new Error("this DID pipeline has no resolver that waits");
            return res;
          },
          (err) => {
            if (hosted) throw err;
            const id = requestIdFrom(req.headers.get("x-request-id"));
            const res = auth.errorResponse(err, id, url.slice(path));
            if (res === undefined) throw err;
            for (const [k, v] of Object.entries(CORS_HEADERS)) res.headers.set(k, v);
            return finish(req, res, path, hosted, t0, id);
          },
        );
      }
    }
    return authorized(req, didStart, doc, done);
  };
}
