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

/** Freezes a JSON value in place so that shared cached results cannot be changed by a caller. */
export function deepFreeze<T>(value: T): T {
  if (typeof value === "object" && value !== null && !Object.isFrozen(value)) {
    Object.freeze(value);
    for (const v of Object.values(value)) deepFreeze(v);
  }
  return value;
}

/** A result ready to serve. The result is frozen: copy it (`structuredClone`) before changing it. */
export class DidAnswer {
  /** The W3C resolution result (frozen). */
  readonly result: DidResolutionResult;
  /** HTTP status for the result. */
  readonly status: number;
  /** Reuse window for `Cache-Control`. */
  readonly freshness: Freshness;
  #resultBytes?: Uint8Array;
  #documentBytes?: Uint8Array;

  constructor(result: DidResolutionResult, freshness: Freshness) {
    this.result = deepFreeze(result);
    this.status = statusOf(result);
    this.freshness = freshness;
  }

  /** True when the result carries a document. */
  get ok(): boolean {
    return this.result.didDocument !== null &&
      this.result.didResolutionMetadata.error === undefined;
  }

  /** The whole result as JSON bytes (computed once). */
  resultBytes(): Uint8Array {
    return this.#resultBytes ??= encoder.encode(JSON.stringify(this.result));
  }

  /** The bare DID document as JSON bytes (computed once); only for `ok` answers. */
  documentBytes(): Uint8Array {
    return this.#documentBytes ??= encoder.encode(JSON.stringify(this.result.didDocument));
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
