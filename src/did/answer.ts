/**
 * A resolution result prepared for serving: its HTTP status, how long it stays fresh, and its JSON
 * bytes, serialized at most once per representation (the hot path writes cached bytes).
 */
import type { DidResolutionErrorCode, DidResolutionResult } from "./types.ts";

/** How long an answer may be reused by a client or CDN. */
export type Freshness =
  /** Derived from the DID alone (did:key, did:jwk, did:peer): never changes. */
  | { kind: "immutable" }
  /** Cached network resolution: fresh until `expiresAt` (ms since epoch). */
  | { kind: "until"; expiresAt: number }
  /** Not to be stored (failures, uncached results). */
  | { kind: "none" };

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

const encoder = new TextEncoder();
const decoder = new TextDecoder();
/** `{"didDocument":` : the serialized result starts with the document. */
const DOC_START = 15;
// deno-lint-ignore no-control-regex
const ASCII = /^[\x00-\x7f]*$/;
/** Bytes an answer holds besides its JSON (object headers, the cache entry), for cache budgets. */
const OVERHEAD_BYTES = 160;

/** Freezes a JSON value in place so that shared cached results cannot be changed by a caller. */
export function deepFreeze<T>(value: T): T {
  if (typeof value === "object" && value !== null && !Object.isFrozen(value)) {
    Object.freeze(value);
    for (const v of Object.values(value)) deepFreeze(v);
  }
  return value;
}

/**
 * A result ready to serve. It keeps one copy of the result: its JSON bytes, serialized once with
 * the document first, so that the bare document is a view into the same bytes. The result object
 * is parsed again (and frozen) when asked for, which only uncommon paths do (DID URL dereferencing,
 * other features calling `resolve`).
 */
export class DidAnswer {
  /** HTTP status for the result. */
  readonly status: number;
  /** Reuse window for `Cache-Control`. */
  readonly freshness: Freshness;
  /** True when the result carries a document. */
  readonly ok: boolean;
  /** `didResolutionMetadata.servedFromCache`. */
  readonly servedFromCache: boolean;
  readonly #bytes: Uint8Array;
  /** End of the document inside `#bytes` (0 when there is no document). */
  readonly #docEnd: number;

  constructor(result: DidResolutionResult, freshness: Freshness) {
    this.status = statusOf(result);
    this.freshness = freshness;
    this.ok = result.didDocument !== null && result.didResolutionMetadata.error === undefined;
    this.servedFromCache = result.didResolutionMetadata.servedFromCache === true;
    const doc = result.didDocument === null ? "null" : JSON.stringify(result.didDocument);
    const rest = JSON.stringify({
      didDocumentMetadata: result.didDocumentMetadata,
      didResolutionMetadata: result.didResolutionMetadata,
    });
    this.#bytes = encoder.encode(`{"didDocument":${doc},${rest.slice(1)}`);
    const restBytes = ASCII.test(rest) ? rest.length : encoder.encode(rest).length;
    this.#docEnd = this.ok ? this.#bytes.length - restBytes : 0;
  }

  /** The W3C resolution result, parsed from the bytes (a new frozen object on every call). */
  get result(): DidResolutionResult {
    return deepFreeze(JSON.parse(decoder.decode(this.#bytes)) as DidResolutionResult);
  }

  /** The whole result as JSON bytes (shared: never change them). */
  resultBytes(): Uint8Array {
    return this.#bytes;
  }

  /** The bare DID document as JSON bytes, a view into `resultBytes()`; only for `ok` answers. */
  documentBytes(): Uint8Array {
    return this.#bytes.subarray(DOC_START, this.#docEnd);
  }

  /** Approximate memory the answer holds, for byte-bounded caches. */
  get weight(): number {
    return this.#bytes.byteLength + OVERHEAD_BYTES;
  }
}

/** A copy of `result` with `servedFromCache` set in its resolution metadata. */
export function withServedFromCache(
  result: DidResolutionResult,
  servedFromCache: boolean,
): DidResolutionResult {
  return {
    didDocument: result.didDocument,
    didDocumentMetadata: result.didDocumentMetadata,
    didResolutionMetadata: { ...result.didResolutionMetadata, servedFromCache },
  };
}
