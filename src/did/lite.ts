/**
 * The part of `GET /dids/{did}` that loads before the app (`src/main.ts` starts serving with it
 * and loads everything else in the background): how an answer becomes a Response (shared with
 * `did/routes.ts`, so both write the same bytes and headers), and the early lane, which answers a
 * plain public request for an Ed25519 did:key — the DID wallets resolve most — while the rest of
 * the service is still loading. It imports no curve library, no router and no KV.
 *
 * @module
 */
import { logRequest, requestIdFrom, requestLogged } from "../http/lite.ts";
import { DidAnswer, withServedFromCache } from "./answer.ts";
import { negotiate, type Representation } from "./content_negotiation.ts";
import { ed25519KeyDocument } from "./methods/key_ed25519.ts";
import { decodeMultibaseKey } from "./multicodec.ts";
import { parseDidWithReason } from "./syntax.ts";
import { resolutionSuccess } from "./types.ts";

/** `Cache-Control` max-age of answers derived from the DID alone. */
export const IMMUTABLE_SECONDS = 86400;

/** A path segment that is a percent-encoded DID (`did%3A…`, any case). */
const ENCODED_DID = /^did%3a/i;

/** The DID from the raw request URL (last path segment), per the contract's raw path rule. */
export function didFromUrl(url: string): string | undefined {
  const pathStart = url.indexOf("/", url.indexOf("//") + 2);
  let end = url.indexOf("?", pathStart);
  if (end < 0) end = url.length;
  const hash = url.indexOf("#", pathStart);
  if (hash >= 0 && hash < end) end = hash;
  const segment = url.slice(url.lastIndexOf("/", end - 1) + 1, end);
  if (segment.charCodeAt(3) === 37 && ENCODED_DID.test(segment)) {
    try {
      return decodeURIComponent(segment);
    } catch {
      return undefined;
    }
  }
  return segment;
}

/** The token of the common `Bearer <token>` form, else undefined (no regex). */
export function plainBearer(header: string | null | undefined): string | undefined {
  return header != null && header.length > 7 && header.startsWith("Bearer ") &&
      header.indexOf(" ", 7) === -1
    ? header.slice(7)
    : undefined;
}

/**
 * Seconds of freshness left to announce: -1 immutable, -2 none (no-store), else max-age. The
 * clock is read only for an answer that counts down (a warm did:key answer reads none).
 */
export function maxAge(answer: DidAnswer, now: () => number): number {
  const f = answer.freshness;
  if (f.kind === "immutable") return -1;
  if (f.kind === "until") return Math.max(0, Math.floor((f.expiresAt - now()) / 1000));
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

/** The Response of an answer in a representation (the bare document only for a 200). */
export function answerResponse(
  answer: DidAnswer,
  rep: Representation,
  cacheControl: string,
): Response {
  let body: Uint8Array;
  let contentType: string;
  if (answer.status === 200 && rep.kind === "document") {
    body = answer.documentBytes();
    contentType = rep.contentType;
  } else {
    body = answer.resultBytes();
    contentType = rep.kind === "result" ? rep.contentType : "application/json";
  }
  return new Response(body as Uint8Array<ArrayBuffer>, {
    status: answer.status,
    headers: { "content-type": contentType, "cache-control": cacheControl, vary: "Accept" },
  });
}

/** Where a plain `GET /dids/{did}` or `/1.0/identifiers/{did}` URL's DID starts, else -1. */
export function plainDidPathStart(url: string): number {
  const path = url.indexOf("/", url.indexOf("//") + 2);
  const prefixEnd = url.startsWith("/dids/", path)
    ? path + 6
    : url.startsWith("/1.0/identifiers/", path)
    ? path + 17
    : -1;
  if (prefixEnd < 0 || url.indexOf("/", prefixEnd) >= 0 || url.indexOf("?", path) >= 0) return -1;
  return path;
}

/**
 * The early lane: while the app loads, a plain public `GET /dids/{did}` or
 * `/1.0/identifiers/{did}` (one path segment, no query, no `Cache-Control`) for a valid Ed25519
 * did:key gets exactly what the route would answer (same bytes, headers and log line; the request
 * id as the fast lane gives it, `finishFastAnswer`). Anything else is declined (undefined) and
 * waits for the app.
 */
export function createEarlyLane(
  options: { isPublic: boolean },
): (req: Request) => Response | undefined {
  return (req) => {
    if (!options.isPublic || req.method !== "GET") return undefined;
    const url = req.url;
    const path = plainDidPathStart(url);
    if (path < 0) return undefined;
    const headers = req.headers;
    if (headers.has("cache-control")) return undefined;
    const rep = negotiate(headers.get("accept") ?? undefined);
    if (rep === null) return undefined;
    const did = didFromUrl(url);
    if (did === undefined || !did.startsWith("did:key:z6Mk")) return undefined;
    const parsed = parseDidWithReason(did);
    if (!parsed.ok || parsed.value.did !== did) return undefined;
    const multibase = did.slice(8);
    if (multibase.includes(":")) return undefined;
    const key = decodeMultibaseKey(multibase);
    if (!key.ok || key.value.keyType !== "Ed25519") return undefined;
    const doc = ed25519KeyDocument(did, multibase, key.value.publicKey);
    if (!doc.ok) return undefined;
    const t0 = performance.now();
    const answer = new DidAnswer(withServedFromCache(resolutionSuccess(doc.value), false), {
      kind: "immutable",
    });
    const res = answerResponse(answer, rep, cacheControlFor(-1, "public"));
    return finishFastAnswer(res, headers.get("x-request-id"), url, path, t0);
  };
}

/**
 * Request id and log line of an answer a lane made (`GET /dids/{did}` and the early lane): a caller
 * that sent `x-request-id` always gets one back (its own when sane, else a new one); a new id is
 * made only when the request's log line is written (an id that names no log line finds nothing,
 * and attaching a header costs a warm answer about a microsecond, some 6 % of it). Every other
 * response carries an id always (`http/request_id.ts`). `pathStart`: where the URL's path starts;
 * `t0`: when the work began, undefined for an answer straight from a cache (0 ms).
 */
export function finishFastAnswer(
  res: Response,
  given: string | null,
  url: string,
  pathStart: number,
  t0?: number,
): Response {
  const logged = requestLogged(res.status);
  if (given === null && !logged) return res;
  const id = requestIdFrom(given);
  res.headers.set("x-request-id", id);
  if (logged) logRequest(id, "GET", url.slice(pathStart), res.status, t0);
  return res;
}
