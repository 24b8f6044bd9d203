/**
 * How a `did-resolver` driver's answer becomes this service's (the rules are listed in
 * `driver.ts`): its error keywords, a throw, a time-out, and a result that is not one.
 *
 * @module
 */
import {
  DID_LD_JSON,
  type DidDocumentMetadata,
  type DidResolutionErrorCode,
  type DidResolutionResult,
  type ParsedDid,
  resolutionError,
} from "../types.ts";
import { isObject } from "../../base/mod.ts";

/** A result larger than this (serialized) is not accepted from a driver. */
const MAX_RESULT_CHARS = 1024 * 1024;

const KEYWORDS: Record<string, DidResolutionErrorCode> = {
  notfound: "notFound",
  invaliddid: "invalidDid",
  invaliddidurl: "invalidDidUrl",
  methodnotsupported: "methodNotSupported",
  unsupporteddidmethod: "methodNotSupported",
  unknownnetwork: "methodNotSupported",
  representationnotsupported: "representationNotSupported",
  unsupportedformat: "representationNotSupported",
  internalerror: "internalError",
};

/** A driver's error keyword (any spelling: `notFound`, `NotFound!`, `not_found`) as DID Core's. */
export function driverKeyword(error: string): DidResolutionErrorCode | undefined {
  return KEYWORDS[error.toLowerCase().replace(/[^a-z]/g, "")];
}

/** What `race` gives when the time is up. */
export const TIMED_OUT: unique symbol = Symbol("timed out");

/** A thrown or rejected value, kept apart from a driver's answer. */
export class Failure {
  constructor(readonly error: unknown) {}
  /** The first line of what was thrown, at most 200 characters (whatever was thrown). */
  get text(): string {
    let s: string;
    try {
      const e = this.error;
      s = e instanceof Error ? String(e.message) : typeof e === "string" ? e : JSON.stringify(e);
    } catch {
      s = "";
    }
    return (s || "something that is not an error").split("\n")[0]!.slice(0, 200);
  }
}

/** `promise`'s value, a `Failure` when it rejects, or `TIMED_OUT` after `ms`. */
export async function race<T>(
  promise: Promise<T>,
  ms: number,
): Promise<T | Failure | typeof TIMED_OUT> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const settled = promise.then((v) => v, (e: unknown) => new Failure(e));
  const timeout = new Promise<typeof TIMED_OUT>((resolve) => {
    timer = setTimeout(() => resolve(TIMED_OUT), Math.max(0, ms));
  });
  try {
    return await Promise.race([settled, timeout]);
  } finally {
    clearTimeout(timer);
  }
}

/** The answer when a driver gave none in time. */
export function timedOut(method: string, ms: number): DidResolutionResult {
  return resolutionError("internalError", `the ${method} driver gave no answer within ${ms} ms`);
}

/** The answer to a driver that threw: `invalidDid` when it says the DID is invalid, else 500. */
export function thrown(method: string, f: Failure): DidResolutionResult {
  const text = f.text;
  if (/\binvalid did\b/i.test(text)) {
    return resolutionError("invalidDid", `the ${method} driver refused the DID: ${text}`);
  }
  return resolutionError("internalError", `the ${method} driver failed: ${text}`);
}

/** A plain JSON object (not null, not an array). */
/** A driver's answer as a resolution result, or `internalError` when it is not one. */
export function asResult(raw: unknown, parsed: ParsedDid, method: string): DidResolutionResult {
  const garbage = (why: string) =>
    resolutionError(
      "internalError",
      `the ${method} driver returned ${why}, not a resolution result`,
    );
  if (!isObject(raw) || !isObject(raw.didResolutionMetadata)) return garbage(describe(raw));
  const resMeta = raw.didResolutionMetadata;
  if (resMeta.error !== undefined && resMeta.error !== null) {
    const keyword = typeof resMeta.error === "string" ? driverKeyword(resMeta.error) : undefined;
    const said = typeof resMeta.message === "string" ? resMeta.message.slice(0, 300) : undefined;
    if (keyword === undefined) {
      return resolutionError(
        "internalError",
        `the ${method} driver answered ${JSON.stringify(resMeta.error)}${said ? `: ${said}` : ""}`,
      );
    }
    return resolutionError(keyword, said ?? `the ${method} driver answered ${resMeta.error}`);
  }
  let copy: { didDocument: unknown; didDocumentMetadata: unknown };
  try {
    const text = JSON.stringify({
      didDocument: raw.didDocument ?? null,
      didDocumentMetadata: raw.didDocumentMetadata ?? {},
    });
    if (text.length > MAX_RESULT_CHARS) return garbage(`more than ${MAX_RESULT_CHARS} characters`);
    copy = JSON.parse(text);
  } catch (err) {
    return garbage(`something that is not JSON (${err instanceof Error ? err.message : err})`);
  }
  const doc = copy.didDocument;
  if (!isObject(doc)) {
    return garbage(doc === null ? "no document and no error" : "a document that is not an object");
  }
  if (doc.id !== parsed.did) {
    return garbage(
      `a document for ${JSON.stringify(doc.id ?? null).slice(0, 120)} instead of ${parsed.did}`,
    );
  }
  if (!isObject(copy.didDocumentMetadata)) {
    return garbage("document metadata that is not an object");
  }
  const contentType = typeof resMeta.contentType === "string" ? resMeta.contentType : DID_LD_JSON;
  return {
    didDocument: doc as DidResolutionResult["didDocument"],
    didDocumentMetadata: copy.didDocumentMetadata as DidDocumentMetadata,
    didResolutionMetadata: { contentType },
  };
}

function describe(v: unknown): string {
  if (v === null) return "null";
  if (Array.isArray(v)) return "an array";
  if (typeof v === "object") return "an object without didResolutionMetadata";
  return typeof v === "string" ? "a string" : `a ${typeof v}`;
}
