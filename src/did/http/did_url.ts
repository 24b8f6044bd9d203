/**
 * What a request to `GET /dids/{…}` or `GET /1.0/identifiers/{…}` asks for (CONTRACT "Universal
 * Resolver API and DID URL dereferencing"): a DID to resolve, or a DID URL to dereference.
 *
 * - Everything after the route prefix is taken raw (`did:web:example.com%3A3000` stays as
 *   written); a segment starting with `did%3A` is percent-decoded once first.
 * - HTTP clients do not send fragments: a fragment arrives percent-encoded (`%23`). A DID URL query
 *   may arrive percent-encoded in the segment (`%3Fservice%3Dfiles`) or as the HTTP query.
 * - `noCache` is a resolver option, never a DID parameter.
 *
 * @module
 */

/** A parsed request target. */
export interface DidTarget {
  /** The DID URL as the service reads it (DID, path, `?query`, `#fragment`). */
  didUrl: string;
  /** True when it is a DID alone: no path, no DID parameters, no fragment. */
  plain: boolean;
  /** `?noCache=true` (a resolver option). */
  noCache: boolean;
}

/** Route prefixes that carry a DID or DID URL. */
export const DID_PREFIXES = ["/dids/", "/1.0/identifiers/"] as const;

/** What follows the route prefix when it is a DID alone: no `%`, `?`, `#` or `/`. */
const PLAIN_TAIL = /^[^%?#/]+$/;

/** Resolver options of the HTTP query: never DID parameters. */
const RESOLVER_OPTIONS = new Set(["noCache"]);

/**
 * The DID or DID URL of a request URL, or undefined when the path is not valid percent-encoding.
 * `prefixEnd` is the index just after the route prefix.
 */
export function didTargetOf(url: string, prefixEnd: number): DidTarget | undefined {
  // A DID alone with nothing to decode (the common request): read without the steps below.
  const tail = url.slice(prefixEnd);
  if (PLAIN_TAIL.test(tail)) return { didUrl: tail, plain: true, noCache: false };
  let end = url.indexOf("?", prefixEnd);
  if (end < 0) end = url.length;
  const hash = url.indexOf("#", prefixEnd);
  if (hash >= 0 && hash < end) end = hash;
  let raw = url.slice(prefixEnd, end);
  const httpQuery = end < url.length && url[end] === "?"
    ? url.slice(end + 1, hash > end ? hash : undefined)
    : "";
  try {
    if (raw.length >= 6 && raw.slice(0, 6).toLowerCase() === "did%3a") {
      raw = decodeURIComponent(raw);
    } else {
      raw = decodeUrlParts(raw);
    }
  } catch {
    return undefined;
  }
  // The DID URL's own query and fragment (from the segment), then the HTTP query's DID parameters.
  const fragmentAt = raw.indexOf("#");
  let fragment = fragmentAt >= 0 ? raw.slice(fragmentAt + 1) : undefined;
  let rest = fragmentAt >= 0 ? raw.slice(0, fragmentAt) : raw;
  const queryAt = rest.indexOf("?");
  const params: string[] = [];
  if (queryAt >= 0) {
    const q = rest.slice(queryAt + 1);
    if (q) params.push(q);
    rest = rest.slice(0, queryAt);
  }
  let noCache = false;
  if (httpQuery) {
    const kept: string[] = [];
    for (const pair of httpQuery.split("&")) {
      if (pair === "") continue;
      const name = decodeName(pair);
      if (name === "noCache") noCache = pair.slice(pair.indexOf("=") + 1) === "true";
      else if (!RESOLVER_OPTIONS.has(name ?? "")) kept.push(pair);
    }
    if (kept.length) params.push(kept.join("&"));
  }
  if (fragment === "") fragment = undefined;
  const query = params.join("&");
  const didUrl = rest + (query ? `?${query}` : "") + (fragment !== undefined ? `#${fragment}` : "");
  const plain = query === "" && fragment === undefined && !hasPath(rest);
  return { didUrl, plain, noCache };
}

/** Decodes an encoded `?` or `#` (and everything after it) of a raw segment; the DID stays raw. */
function decodeUrlParts(raw: string): string {
  const m = /%3f|%23/i.exec(raw);
  if (!m) return raw;
  return raw.slice(0, m.index) + decodeURIComponent(raw.slice(m.index));
}

function decodeName(pair: string): string | undefined {
  const eq = pair.indexOf("=");
  try {
    return decodeURIComponent(eq < 0 ? pair : pair.slice(0, eq));
  } catch {
    return undefined;
  }
}

/** True when a DID URL without query and fragment has a path after its DID. */
function hasPath(didAndPath: string): boolean {
  return didAndPath.indexOf("/") >= 0;
}
