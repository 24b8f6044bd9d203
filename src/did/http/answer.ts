/**
 * `answerDid`: the one way a request to `/dids/…` or `/1.0/…` is answered, whichever entrance it
 * comes through (the early lane `../lite.ts`, the door in front of the router in `src/app.ts`, the
 * Hono routes in `routes.ts`): parse → authorize → resolve through the cache → negotiate → encode
 * → log. An entrance may only call it with less around it: without a dependency (token checks, a
 * resolver that waits, dereferencing, the documents) it declines (undefined) what needs one.
 * `hosted` (the Hono routes): the app's middleware and `onError` write request id, line and errors.
 *
 * CONTRACT "DID resolution": the path taken raw (`did_url.ts`); always a DidResolutionResult but
 * for a bare document asked for by `Accept`; status by error code, 410 when deactivated, 406 for an
 * unacceptable `Accept`; `Cache-Control` immutable for results derived from the DID, the remaining
 * freshness of cached network results, `no-store` for failures, `public` only when resolution needs
 * no token; any web origin (`*`, no credentials), and a preflight needs no token.
 *
 * Warm path: a token the verifier has seen, a memoized `Accept` answer, a resolution held in
 * memory, a prepared Response cloned (building one validates every header, about 1 µs each); no
 * clock read unless the max-age counts down, no request id unless asked for or logged.
 *
 * @module
 */
import { logRequest, requestIdFrom, requestLogged } from "../../http/lite.ts";
import { Lru } from "../../base/mod.ts";
import type { ResolveOptions } from "../cache/cache.ts";
import { negotiate, type Representation } from "./content_negotiation.ts";
import { didTargetOf } from "./did_url.ts";
import {
  type DidDocument,
  type DidResolutionErrorCode,
  type DidResolutionResult,
  type Freshness,
  type Resolution,
  resolutionError,
  withServedFromCache,
} from "../types.ts";

/** `Cache-Control` max-age of answers derived from the DID alone. */
export const IMMUTABLE_SECONDS = 86400;

/** What the pipeline resolves with (the caching resolver, or a lane's smaller one). */
export interface AnswerResolver {
  /** A resolution at once, from memory (or derived on the spot), else undefined. */
  peek(did: string): Resolution | undefined;
  /** Resolution that may wait for I/O; absent: only what `peek` gives is answered. */
  lookup?(did: string, options?: ResolveOptions): Promise<Resolution>;
  /** The `application/did+json` form of a document, when its method's differs (`DidMethod`). */
  jsonDocument?(doc: DidDocument): DidDocument | undefined;
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
  dereference?: (
    didUrl: string,
    accept: string | undefined,
    noCache: boolean,
  ) => Promise<UrlAnswer>;
  /** JSON documents by path (`/1.0/methods`, …), answered under the same token rule. */
  documents?: ReadonlyMap<string, Uint8Array>;
  /** Clock, ms since epoch (read only for answers that count their max-age down). */
  now: () => number;
  /** Byte bound of the prepared responses; default 2 MiB; 0: none (resolutions made per request). */
  preparedBytes?: number;
}

/** The answer to a DID URL; `peer`: it reports a peer's failure (see `Resolution.source`). */
export interface UrlAnswer {
  res: Response;
  peer: boolean;
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

/**
 * The CORS header of a DID answer to a cross-origin request (CONTRACT: any origin, no
 * credentials). Only a request with `Origin` gets it (`finish`), and every answer says
 * `Vary: Origin`: one more response header costs the runtime about 0.6 µs per request over HTTP
 * (8 % of a warm answer, tests/bench/README.md), and wallets that are not browsers send no `Origin`.
 */
const CORS_ORIGIN = "access-control-allow-origin";

/** `Vary` of every DID answer: the representation follows `Accept`, the CORS header `Origin`. */
export const ANSWER_VARY = "Accept, Origin";

/** The headers of a DID answer: its type, its reuse, and its `Vary`. */
export function answerHeaders(contentType: string, cacheControl: string): Record<string, string> {
  return { "content-type": contentType, "cache-control": cacheControl, vary: ANSWER_VARY };
}

const PREFLIGHT: ResponseInit = {
  status: 204,
  headers: {
    [CORS_ORIGIN]: "*",
    "access-control-allow-methods": "GET",
    "access-control-allow-headers": "Authorization, Accept",
    "access-control-max-age": "86400",
  },
};

/** HTTP status of each error keyword of resolution and dereferencing (CONTRACT). */
export const ERROR_STATUS: Record<DidResolutionErrorCode, number> = {
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
  if (error !== undefined) return ERROR_STATUS[error] ?? 500;
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

/**
 * The bare document's bytes in `application/did+json` when the document's method writes that form
 * otherwise (`AnswerResolver.jsonDocument`); undefined: the result's own document.
 */
export function jsonBody(
  resolver: Pick<AnswerResolver, "jsonDocument">,
  r: Resolution,
  rep: Representation,
): Uint8Array | undefined {
  const doc = r.result.didDocument;
  if (rep.contentType !== "application/did+json" || doc === null) return undefined;
  const json = resolver.jsonDocument?.(doc);
  return json === undefined ? undefined : encoder.encode(JSON.stringify(json));
}

/** The Response of a result in a representation (the bare document only for a 200). */
function resultResponse(
  status: number,
  enc: Encoded,
  rep: Representation,
  cacheControl: string,
  json?: Uint8Array,
): Response {
  const bare = status === 200 && rep.kind === "document";
  const body = bare ? json ?? enc.bytes.subarray(DOC_START, enc.docEnd) : enc.bytes;
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
  json?: Uint8Array,
): Response {
  const cc = cacheControlFor(maxAge(r.freshness, now), scope);
  return resultResponse(statusOf(r.result), encode(r.result), rep, cc, json);
}

const JSON_REP: Representation = { kind: "result", contentType: "application/json" };
const failed = (code: DidResolutionErrorCode, message: string): Resolution => ({
  result: withServedFromCache(resolutionError(code, message), false),
  freshness: { kind: "none" },
  source: "local",
});
const NOT_ACCEPTABLE = failed(
  "representationNotSupported",
  "None of the Accept media types is offered; use application/did-resolution, " +
    "application/json, application/did+json, application/did+ld+json or application/did.",
);
const BAD_ENCODING = failed("invalidDid", "The path segment is not valid percent-encoded UTF-8.");
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
  const preparedBytes = deps.preparedBytes ?? PREPARED_BYTES;
  const prepared = preparedBytes > 0
    ? new Lru<Prepared, Resolution>(PREPARED_MAX, {
      maxWeight: preparedBytes,
      weigh: (p) => p.weight,
    })
    : undefined;

  /** The Response of a resolution; `hit`: it came from memory, so keep a prepared copy. */
  function respond(r: Resolution, rep: Representation, hit = false): Response {
    const age = maxAge(r.freshness, now);
    let set = prepared?.get(r);
    const p = set?.byRep.get(rep);
    if (p !== undefined && p.age === age) return p.res.clone();
    const json = jsonBody(resolver, r, rep);
    const status = statusOf(r.result);
    if (prepared === undefined || (!hit && set === undefined)) {
      return resultResponse(status, encode(r.result), rep, cacheControlFor(age, scope), json);
    }
    set ??= { enc: encode(r.result), byRep: new Map(), weight: 0 };
    const res = resultResponse(status, set.enc, rep, cacheControlFor(age, scope), json);
    set.byRep.set(rep, { res, age });
    set.weight = set.enc.bytes.length * (1 + set.byRep.size) + RESPONSE_BYTES * set.byRep.size;
    prepared.set(r, set);
    return res.clone();
  }

  /**
   * The request id and log line (unless hosted); a HEAD request gets the headers only. `t0`: when
   * the work began; `peer`: the answer reports a peer's failure (a network method's): warn, not
   * error; `id`: one made already.
   */
  function finish(c: Call, res: Response, t0?: number, peer = false, id?: string): Response {
    const req = c.req;
    if (req.method === "HEAD") res = new Response(null, res);
    if (req.headers.get("origin") !== null) res.headers.set(CORS_ORIGIN, "*");
    if (c.hosted) return res;
    const logged = requestLogged(res.status, peer);
    const given = req.headers.get("x-request-id");
    if (given === null && !logged && id === undefined) return res;
    const requestId = id ?? requestIdFrom(given);
    res.headers.set("x-request-id", requestId);
    if (logged) logRequest(requestId, req.method, req.url.slice(c.path), res.status, t0, peer);
    return res;
  }

  /**
   * Everything after the token rule; undefined when a step has no dependency here. `t0`: when
   * the work began, if it has (a token was verified first).
   */
  function authorized(c: Call, t0?: number): Response | Promise<Response> | undefined {
    if (c.doc !== undefined) {
      const headers = { "content-type": "application/json", "cache-control": "no-store" };
      return finish(c, new Response(c.doc as Uint8Array<ArrayBuffer>, { headers }), t0);
    }
    const headers = c.req.headers;
    const accept = headers.get("accept") ?? undefined;
    const target = didTargetOf(c.req.url, c.didStart);
    const cc = headers.get("cache-control");
    const noCache = cc !== null && NO_CACHE.test(cc);
    if (target !== undefined && !target.plain) {
      if (deps.dereference === undefined) return undefined;
      t0 ??= performance.now();
      return deps.dereference(target.didUrl, accept, target.noCache || noCache)
        .then((a) => finish(c, a.res, t0, a.peer));
    }
    const rep = negotiate(accept);
    if (rep === null) return finish(c, respond(NOT_ACCEPTABLE, JSON_REP), t0);
    if (target === undefined) return finish(c, respond(BAD_ENCODING, rep), t0);
    const did = target.didUrl;
    if (!target.noCache && !noCache) {
      // A hit takes no measurable time (its log line says 0 ms): no clock read.
      const hit = resolver.peek(did);
      if (hit !== undefined) {
        return finish(c, respond(hit, rep, true), t0, hit.source === "network");
      }
    }
    if (resolver.lookup === undefined) return undefined;
    t0 ??= performance.now();
    return resolver.lookup(did, { noCache: target.noCache || noCache })
      .then((r) => finish(c, respond(r, rep), t0, r.source === "network"));
  }

  return (req, hosted = false) => {
    const method = req.method;
    if (method !== "GET" && method !== "HEAD" && method !== "OPTIONS") return undefined;
    const url = req.url;
    const path = url.indexOf("/", url.indexOf("//") + 2);
    const c: Call = { req, path, hosted, didStart: -1, doc: undefined };
    if (url.startsWith("/dids/", path)) c.didStart = path + 6;
    else if (url.startsWith("/1.0/identifiers/", path)) c.didStart = path + 17;
    else if (url.startsWith("/1.0/", path) && documents !== undefined) {
      const q = url.indexOf("?", path);
      c.doc = documents.get(url.slice(path, q < 0 ? undefined : q));
      if (c.doc === undefined) return undefined;
    } else return undefined;
    if (method === "OPTIONS") return finish(c, new Response(null, PREFLIGHT));
    if (deps.isPublic) return authorized(c);
    if (auth === undefined) return undefined;
    const authorization = req.headers.get("authorization");
    if (auth.peek(authorization) !== undefined) return authorized(c);
    const t0 = performance.now();
    return auth.verify(authorization).then(
      async () => {
        const res = await authorized(c, t0);
        if (res === undefined) throw new Error("this DID pipeline has no resolver that waits");
        return res;
      },
      (err) => {
        if (hosted) throw err;
        const id = requestIdFrom(req.headers.get("x-request-id"));
        const res = auth.errorResponse(err, id, url.slice(path));
        if (res === undefined) throw err;
        return finish(c, res, t0, false, id);
      },
    );
  };
}

/** One request going through the pipeline. */
interface Call {
  req: Request;
  /** Where the URL's path starts. */
  path: number;
  /** Inside the router (see `AnswerDid`). */
  hosted: boolean;
  /** Where the DID (URL) starts in the URL, or -1 for a document. */
  didStart: number;
  /** The document asked for (`/1.0/methods`, …). */
  doc: Uint8Array | undefined;
}
