/**
 * Fallback for DID methods that are not built in: a Universal Resolver
 * (https://github.com/decentralized-identity/universal-resolver) at `{url}/1.0/identifiers/{did}`,
 * called through the safe outbound client. Its answer is normalized to our result shape: error
 * codes in any of the spellings resolvers use (`notFound`, `NOT_FOUND`, a `#NOT_FOUND` URI) map
 * to ours, and a document whose `id` is not the DID is refused.
 */
import type { SafeFetch } from "../../outbound/mod.ts";
import {
  type DidDocument,
  type DidDocumentMetadata,
  type DidResolutionErrorCode,
  type DidResolutionResult,
  type ParsedDid,
  resolutionError,
  type ResolveContext,
} from "../types.ts";
import { isObject } from "../../base/mod.ts";

/** Options of `createUniversalResolver`. */
export interface UniversalResolverOptions {
  /** Base URL without trailing slash (`UNIVERSAL_RESOLVER_URL`). */
  baseUrl: string;
  safeFetch: SafeFetch;
  /** Default 10 000 ms (universal resolver drivers may query ledgers). */
  timeoutMs?: number;
  /** Default 256 KiB. */
  maxBytes?: number;
}

/** Resolves any DID through a remote resolver. */
export type FallbackResolver = (
  parsed: ParsedDid,
  ctx: ResolveContext,
) => Promise<DidResolutionResult>;

const ACCEPT =
  'application/did-resolution, application/ld+json;profile="https://w3id.org/did-resolution";q=0.9, application/json;q=0.5';
const decoder = new TextDecoder();

const CODES: Record<string, DidResolutionErrorCode> = {
  invaliddid: "invalidDid",
  invalid_did: "invalidDid",
  notfound: "notFound",
  not_found: "notFound",
  representationnotsupported: "representationNotSupported",
  representation_not_supported: "representationNotSupported",
  methodnotsupported: "methodNotSupported",
  method_not_supported: "methodNotSupported",
  internalerror: "internalError",
  internal_error: "internalError",
};

/** Maps a remote error code (any spelling) to ours; unknown codes are internal errors. */
export function normalizeErrorCode(code: string): DidResolutionErrorCode {
  const bare = code.slice(code.lastIndexOf("#") + 1).toLowerCase();
  return CODES[bare] ?? "internalError";
}

function statusCode(status: number): DidResolutionErrorCode {
  if (status === 400) return "invalidDid";
  if (status === 404) return "notFound";
  if (status === 406) return "representationNotSupported";
  if (status === 501) return "methodNotSupported";
  return "internalError";
}

/** Creates the fallback resolver. */
export function createUniversalResolver(options: UniversalResolverOptions): FallbackResolver {
  const base = options.baseUrl.replace(/\/+$/, "");
  return async (parsed, ctx) => {
    // DID characters (ALPHA DIGIT . - _ : %) are all valid in a URL path: the DID goes in as written.
    const url = `${base}/1.0/identifiers/${parsed.did}`;
    let res;
    try {
      res = await options.safeFetch(url, {
        headers: { accept: ACCEPT },
        timeoutMs: options.timeoutMs ?? 10_000,
        maxBytes: options.maxBytes ?? 256 * 1024,
        signal: ctx.signal,
      });
    } catch (err) {
      const why = err instanceof Error ? err.message : String(err);
      return resolutionError("internalError", `the universal resolver failed: ${why}`);
    }
    let body: unknown;
    try {
      body = JSON.parse(decoder.decode(res.body));
    } catch {
      body = undefined;
    }
    const ok = res.status === 200 || res.status === 410;
    if (!isObject(body)) {
      return ok
        ? resolutionError("internalError", "the universal resolver answered with no JSON object")
        : resolutionError(
          statusCode(res.status),
          `the universal resolver answered ${res.status} for ${parsed.did}`,
        );
    }
    // A resolution result, or (some drivers, some Accept values) the bare document.
    const isResult = "didResolutionMetadata" in body || "didDocument" in body;
    const docValue = isResult ? body.didDocument : body;
    const resMeta = isResult && isObject(body.didResolutionMetadata)
      ? body.didResolutionMetadata
      : {};
    const docMeta = isResult && isObject(body.didDocumentMetadata) ? body.didDocumentMetadata : {};
    const remoteError = typeof resMeta.error === "string" ? resMeta.error : undefined;
    if (remoteError !== undefined || !ok) {
      const code = remoteError !== undefined
        ? normalizeErrorCode(remoteError)
        : statusCode(res.status);
      const message = typeof resMeta.message === "string"
        ? resMeta.message
        : `the universal resolver answered ${res.status}${remoteError ? ` (${remoteError})` : ""}`;
      return resolutionError(code, message);
    }
    if (!isObject(docValue) || docValue.id !== parsed.did) {
      const id = isObject(docValue) ? docValue.id : undefined;
      return resolutionError(
        "internalError",
        `the universal resolver returned a document whose id ${
          JSON.stringify(id ?? null)
        } is not ${parsed.did}`,
      );
    }
    const contentType = typeof resMeta.contentType === "string"
      ? resMeta.contentType
      : "application/did+ld+json";
    const meta: DidDocumentMetadata = { ...docMeta };
    if (res.status === 410) meta.deactivated = true;
    return {
      didDocument: docValue as DidDocument,
      didDocumentMetadata: meta,
      didResolutionMetadata: { contentType },
    };
  };
}
