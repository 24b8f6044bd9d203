/**
 * did:webvh (DIF did:webvh v1.0): did:web's hosting with a hash-chained, signed log.
 *
 * - `did:webvh:<SCID>:<host>[%3A<port>][:<path>…]` → `https://<host>[:<port>]/.well-known/did.jsonl`
 *   (or `/<path…>/did.jsonl`), and `did-witness.json` beside it when the log names witnesses. Both
 *   are fetched with the service's safe client (address policy, timeout, size cap, https unless
 *   `OUTBOUND_REQUIRE_HTTPS=false`). An IP-address host is refused without a request.
 * - The log is verified by the reference implementation, `didwebvh-ts`'s `resolveDIDFromLog`
 *   (SCID, hash chain, proofs by the authorized update keys, pre-rotation, witnesses, version
 *   times, portability, deactivation), given the files fetched here: the library makes no request
 *   of its own. It is loaded on first use, so it costs nothing at start.
 * - Versions: `versionId`, `versionTime` and `versionNumber` select earlier versions (read by
 *   `../version.ts`).
 * - Results: the document and `didDocumentMetadata` (`versionId`, `versionNumber`, `created`,
 *   `updated`, `deactivated`); a deactivated DID has no document and answers 410. A log that fails
 *   verification is `invalidDid`, its message naming the rule; no log is `notFound`.
 *
 * @module
 */
import { verifyEd25519 } from "../../crypto/mod.ts";
import type { SafeFetch } from "../../outbound/mod.ts";
import {
  type DidDocument,
  type DidMethod,
  type DidResolutionResult,
  type ParsedDid,
  resolutionError,
} from "../types.ts";
import { readVersion } from "../version.ts";
import { didWebUrl, fetchFailure, hostStatusError } from "./web.ts";
import { lazy } from "../../base/mod.ts";

/** Options of `createWebvhMethod`. */
export interface WebvhMethodOptions {
  safeFetch: SafeFetch;
  /** Use `http:` (only with `OUTBOUND_REQUIRE_HTTPS=false`). */
  useHttp?: boolean;
  /** Per-file timeout in ms. Default 5000. */
  timeoutMs?: number;
  /** Cap of each file in bytes. Default 1 MiB. */
  maxBytes?: number;
}

const DEFAULT_MAX_BYTES = 1024 * 1024;
const IPV4_HOST = /^\d{1,3}(?:\.\d{1,3}){3}(?:%3a\d+)?$/i;
const decoder = new TextDecoder();

/** A log entry as far as this module reads it (the library checks the rest). */
interface LogEntry {
  versionId?: unknown;
  parameters?: { witness?: { witnesses?: unknown[] } | null };
  [member: string]: unknown;
}

/** didwebvh-ts, loaded on first use. */
const loadLibrary = lazy(() => import("didwebvh-ts"));

/** The library's verifier: strict Ed25519 (the library strips the multicodec prefix). */
const verifier = {
  verify: (signature: Uint8Array, message: Uint8Array, publicKey: Uint8Array) =>
    Promise.resolve(verifyEd25519(signature, message, publicKey)),
};

/** The `did.jsonl` URL of a did:webvh, or why there is none. */
export function webvhLogUrl(
  parsed: ParsedDid,
  useHttp = false,
): { url: string; scid: string } | { error: string } {
  const colon = parsed.id.indexOf(":");
  if (colon <= 0) {
    return { error: "a did:webvh is did:webvh:<SCID>:<host>[:<path>…]; the host is missing" };
  }
  const scid = parsed.id.slice(0, colon);
  const location = parsed.id.slice(colon + 1);
  const host = location.split(":")[0]!;
  if (IPV4_HOST.test(host)) {
    return { error: `the host "${host}" is an IP address, which did:webvh does not allow` };
  }
  const web = didWebUrl(location, useHttp);
  if (!web.ok) return { error: web.message };
  return { url: web.value.replace(/did\.json$/, "did.jsonl"), scid };
}

/** Parses JSON Lines; the entries or why not. */
export function parseLog(body: Uint8Array): LogEntry[] | string {
  const lines = decoder.decode(body).split("\n");
  const entries: LogEntry[] = [];
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i]!.trim();
    if (line === "") continue;
    let entry: unknown;
    try {
      entry = JSON.parse(line);
    } catch {
      return `line ${i + 1} of did.jsonl is not JSON`;
    }
    if (typeof entry !== "object" || entry === null || Array.isArray(entry)) {
      return `line ${i + 1} of did.jsonl is not a JSON object`;
    }
    entries.push(entry as LogEntry);
  }
  return entries.length === 0 ? "did.jsonl has no entries" : entries;
}

/** Creates the did:webvh driver (a network method: the cache keeps its results for the TTL). */
export function createWebvhMethod(options: WebvhMethodOptions): DidMethod {
  const timeoutMs = options.timeoutMs ?? 5000;
  const maxBytes = options.maxBytes ?? DEFAULT_MAX_BYTES;

  async function fetchFile(url: string, signal: AbortSignal | undefined) {
    return await options.safeFetch(url, {
      headers: { accept: "application/jsonl, application/json;q=0.9, */*;q=0.1" },
      timeoutMs,
      maxBytes,
      signal,
    });
  }

  return {
    name: "webvh",
    // the log holds every version and deactivation; the SCID is not readable
    traits: {
      updatable: true,
      deactivatable: true,
      enumerable: false,
      historyAvailable: true,
      humanReadable: false,
    },
    deterministic: false,
    versions: true,
    async resolve(parsed, ctx): Promise<DidResolutionResult> {
      const where = webvhLogUrl(parsed, options.useHttp);
      if ("error" in where) {
        return resolutionError("invalidDid", `invalid did:webvh: ${where.error}`);
      }
      const selection = readVersion(ctx.version);
      if (typeof selection === "string") return resolutionError("invalidDidUrl", selection);

      let res;
      try {
        res = await fetchFile(where.url, ctx.signal);
      } catch (err) {
        return fetchFailure(err, where.url);
      }
      const refused = hostStatusError(where.url, res.status, parsed.did, "DID log");
      if (refused) return refused;
      const log = parseLog(res.body);
      if (typeof log === "string") return resolutionError("invalidDid", `${log} (${where.url})`);

      // Witness proofs, when the log names witnesses: fetched here, handed to the library.
      let witnessProofs: unknown[] = [];
      if (log.some((e) => (e.parameters?.witness?.witnesses?.length ?? 0) > 0)) {
        const url = where.url.replace(/did\.jsonl$/, "did-witness.json");
        let w;
        try {
          w = await fetchFile(url, ctx.signal);
        } catch (err) {
          return fetchFailure(err, url);
        }
        if (w.status === 200) {
          try {
            const parsedProofs = JSON.parse(decoder.decode(w.body));
            if (!Array.isArray(parsedProofs)) throw new Error("not an array");
            witnessProofs = parsedProofs;
          } catch {
            return resolutionError("invalidDid", `${url} is not a JSON array of witness proofs`);
          }
        } else if (w.status !== 404 && w.status !== 410) {
          return resolutionError("internalError", `${url} answered ${w.status}`);
        }
      }

      const { resolveDIDFromLog } = await loadLibrary();
      let out: Awaited<ReturnType<typeof resolveDIDFromLog>>;
      try {
        out = await resolveDIDFromLog(log as never, {
          ...selection,
          verifier,
          witnessProofs: witnessProofs as never,
          scid: where.scid,
          requestedDid: parsed.did,
        });
      } catch (err) {
        return resolutionError(
          "invalidDid",
          `the did:webvh log of ${parsed.did} failed verification: ${errorText(err)}`,
        );
      }
      const meta = out.meta;
      if (meta.error !== undefined) {
        const detail = meta.problemDetails?.detail ?? meta.problemDetails?.title ?? meta.error;
        return resolutionError(
          meta.error === "notFound" ? "notFound" : "invalidDid",
          `did:webvh: ${detail}`,
        );
      }
      const versionNumber = Number(String(meta.versionId).split("-")[0]);
      const didDocumentMetadata = {
        versionId: meta.versionId,
        ...(Number.isInteger(versionNumber) ? { versionNumber } : {}),
        created: meta.created,
        updated: meta.updated,
        ...(meta.deactivated ? { deactivated: true } : {}),
      };
      if (!out.doc) {
        // Deactivated: no document, the metadata says so (410).
        return { didDocument: null, didDocumentMetadata, didResolutionMetadata: {} };
      }
      return {
        didDocument: out.doc as DidDocument,
        didDocumentMetadata,
        didResolutionMetadata: { contentType: "application/did+ld+json" },
      };
    },
  };
}

function errorText(err: unknown): string {
  return (err instanceof Error ? err.message : String(err)).split("\n")[0]!.slice(0, 300);
}
