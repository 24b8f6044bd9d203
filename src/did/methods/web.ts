/**
 * did:web (https://w3c-ccg.github.io/did-method-web/): the document is fetched over https from the
 * host named in the DID, through the service's safe outbound client (timeout, body cap, no
 * redirects, address policy). Unlike `web-did-resolver`, failures are told apart:
 *
 * - origin 404 or 410 → `notFound`;
 * - network failure, timeout, 5xx and other statuses, redirect, oversize, not a JSON object, and a
 *   document whose `id` is not the DID → `internalError` (the DID is fine, its host served nothing
 *   usable; `invalidDid` would tell the caller to fix a DID that has nothing wrong with it);
 * - a method-specific id that is not `host[%3Aport](:segment)*` → `invalidDid`;
 * - a refused URL (https required, private address) → `internalError` naming the policy.
 */
import { type SafeFetch, SafeFetchError } from "../../outbound/mod.ts";
import {
  type DidDocument,
  type DidMethod,
  type DidResolutionResult,
  fail,
  ok,
  type ParsedDid,
  resolutionError,
  type Result,
} from "../types.ts";

/** Options of `createWebMethod`. */
export interface WebMethodOptions {
  /** The outbound client (`deps.safeFetch`). */
  safeFetch: SafeFetch;
  /** Use `http:` instead of `https:` (only with `OUTBOUND_REQUIRE_HTTPS=false`). Default false. */
  useHttp?: boolean;
  /** Whole-fetch timeout in ms. Default 5000. */
  timeoutMs?: number;
  /** Body cap in bytes. Default 256 KiB. */
  maxBytes?: number;
}

/** Default did:web fetch timeout (ms). */
export const WEB_TIMEOUT_MS = 5000;
/** Default did:web body cap (bytes). */
export const WEB_MAX_BYTES = 256 * 1024;

// host = DNS name or IPv4 literal; optional port, whose colon is written %3A in the DID.
const HOST_RE =
  /^(?:[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?)(?:\.[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?)*(?:%3a[0-9]{1,5})?$/i;
const ACCEPT = "application/did+json, application/did+ld+json, application/json;q=0.9, */*;q=0.1";
const decoder = new TextDecoder();

/**
 * The URL of the DID document of a did:web method-specific id: `example.com` →
 * `https://example.com/.well-known/did.json`; `example.com%3A3000:user:alice` →
 * `https://example.com:3000/user/alice/did.json`.
 */
export function didWebUrl(methodSpecificId: string, useHttp = false): Result<string> {
  const segments = methodSpecificId.split(":");
  const host = segments[0]!;
  if (!HOST_RE.test(host)) {
    return fail(
      `"${host}" is not a host name (with an optional port written as %3A)`,
    );
  }
  const hostPort = host.replace(/%3a/i, ":");
  const port = hostPort.includes(":") ? Number(hostPort.slice(hostPort.indexOf(":") + 1)) : 0;
  if (port > 65535) return fail(`port ${port} is out of range`);
  const path = segments.slice(1);
  for (const seg of path) {
    let decoded: string;
    try {
      decoded = decodeURIComponent(seg);
    } catch {
      return fail(`path segment "${seg}" is not valid percent-encoded UTF-8`);
    }
    if (decoded === "" || decoded === "." || decoded === ".." || decoded.includes("/")) {
      return fail(`path segment "${seg}" is not allowed`);
    }
  }
  const scheme = useHttp ? "http" : "https";
  const suffix = path.length === 0 ? "/.well-known/did.json" : `/${path.join("/")}/did.json`;
  return ok(`${scheme}://${hostPort.toLowerCase()}${suffix}`);
}

/** Why a fetched body is not the document of `did`, or the document. */
export function parseWebDocument(did: string, body: Uint8Array): Result<DidDocument> {
  let doc: unknown;
  try {
    doc = JSON.parse(decoder.decode(body));
  } catch {
    return fail("the did:web host answered with something that is not JSON");
  }
  if (typeof doc !== "object" || doc === null || Array.isArray(doc)) {
    return fail("the did:web host answered with JSON that is not an object");
  }
  const id = (doc as { id?: unknown }).id;
  if (id !== did) {
    return fail(
      `the document's id ${JSON.stringify(id ?? null)} is not the DID ${did}`,
    );
  }
  return ok(doc as DidDocument);
}

/** A fetch from the DID's host that failed (no answer, refused by the outbound policy, …). */
export function fetchFailure(err: unknown, url: string): DidResolutionResult {
  const why = err instanceof SafeFetchError || err instanceof Error ? err.message : String(err);
  return resolutionError("internalError", `fetching ${url} failed: ${why}`);
}

/**
 * What the host's HTTP status says, when it is not 200: 404 or 410, there is no such DID
 * (`notFound`); anything else, the host failed (`internalError`). `what` names the file ("DID
 * document", "DID log").
 */
export function hostStatusError(
  url: string,
  status: number,
  did: string,
  what: string,
): DidResolutionResult | undefined {
  if (status === 404 || status === 410) {
    return resolutionError("notFound", `${url} answered ${status}: there is no ${what} for ${did}`);
  }
  if (status !== 200) {
    return resolutionError("internalError", `${url} answered ${status} instead of a ${what}`);
  }
  return undefined;
}

/** Creates the did:web driver. Not deterministic: results are cached by the caching decorator. */
export function createWebMethod(options: WebMethodOptions): DidMethod {
  const timeoutMs = options.timeoutMs ?? WEB_TIMEOUT_MS;
  const maxBytes = options.maxBytes ?? WEB_MAX_BYTES;
  return {
    name: "web",
    // the host serves the current document only; a domain is readable
    traits: {
      updatable: true,
      deactivatable: true,
      enumerable: false,
      historyAvailable: false,
      humanReadable: true,
    },
    deterministic: false,
    async resolve(parsed: ParsedDid, ctx): Promise<DidResolutionResult> {
      const url = didWebUrl(parsed.id, options.useHttp);
      if (!url.ok) return resolutionError("invalidDid", `invalid did:web: ${url.message}`);
      let res;
      try {
        res = await options.safeFetch(url.value, {
          headers: { accept: ACCEPT },
          timeoutMs,
          maxBytes,
          signal: ctx.signal,
        });
      } catch (err) {
        return fetchFailure(err, url.value);
      }
      const refused = hostStatusError(url.value, res.status, parsed.did, "DID document");
      if (refused) return refused;
      const doc = parseWebDocument(parsed.did, res.body);
      if (!doc.ok) return resolutionError("internalError", `${doc.message} (${url.value})`);
      const contentType = doc.value["@context"] === undefined
        ? "application/did+json"
        : "application/did+ld+json";
      return {
        didDocument: doc.value,
        didDocumentMetadata: {},
        didResolutionMetadata: { contentType },
      };
    },
  };
}
