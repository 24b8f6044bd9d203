/**
 * did:plc (https://web.plc.directory/spec/v0.1/did-plc), resolved from the PLC directory's
 * operation log, never from the directory's own rendering:
 *
 * - `did:plc:` + exactly 24 characters of `[a-z2-7]`; anything else is `invalidDid` before any
 *   request.
 * - `GET {DID_PLC_DIRECTORY_URL}/{did}/log/audit` through the service's safe client (address
 *   policy, https unless `OUTBOUND_REQUIRE_HTTPS=false`, timeout, size cap), like every
 *   operator-configured URL (`UNIVERSAL_RESOLVER_URL`).
 * - The whole log is verified (`plc/verify_log.ts`: genesis hash, low-S signatures by rotation
 *   keys, recovery rules, tombstones, the directory's nullified flags); a log that breaks a rule is
 *   `invalidDid` naming the rule. The verifier and its libraries are loaded on first use.
 * - The document of the newest valid operation, rendered as plc.directory renders it today
 *   (`plc/document.ts`); `versionId` (an operation CID) and `versionTime` select earlier states.
 *   Metadata: `created` (genesis), `updated` (the state's operation), `versionId` (its CID), and
 *   `nextUpdate`/`nextVersionId` for an earlier state. A tombstone: no document, `deactivated`
 *   (410). No log: `notFound`. Directory unreachable or 5xx: `internalError`.
 *
 * @module
 */
import { type SafeFetch, SafeFetchError } from "../../outbound/mod.ts";
import {
  DID_LD_JSON,
  type DidDocumentMetadata,
  type DidMethod,
  type DidResolutionResult,
  type DidVersion,
  resolutionError,
} from "../types.ts";
import { lazy } from "../../base/mod.ts";
import { readVersion } from "../version.ts";

/** Options of `createPlcMethod`. */
export interface PlcMethodOptions {
  /** The outbound client (`deps.safeFetch`). */
  safeFetch: SafeFetch;
  /** `DID_PLC_DIRECTORY_URL`, without a trailing slash. */
  directoryUrl: string;
  /** Timeout of the log request in ms. Default 5000. */
  timeoutMs?: number;
  /** Cap of the log in bytes. Default 1 MiB. */
  maxBytes?: number;
}

/** Default cap of an audit log (bytes). */
export const PLC_MAX_BYTES = 1024 * 1024;

const PLC_ID = /^[a-z2-7]{24}$/;
const decoder = new TextDecoder();

/** The verifier (DAG-CBOR, multiformats, curves), loaded on first use. */
const loadPlc = lazy(() => import("./plc/mod.ts"));

/** A version selection: a CID and/or a time in ms, or why the parameters are refused. */
function selection(v: DidVersion | undefined): { cid?: string; time?: number } | string {
  if (v === undefined) return {};
  if (v.versionNumber !== undefined) {
    return "did:plc versions have no numbers; select one with versionId (an operation CID) or versionTime";
  }
  const read = readVersion(v);
  if (typeof read === "string") return read;
  const out: { cid?: string; time?: number } = {};
  if (read.versionId !== undefined) out.cid = read.versionId;
  if (read.versionTime !== undefined) out.time = read.versionTime.getTime();
  return out;
}

const iso = (time: number) => new Date(time).toISOString();

/** Creates the did:plc driver (a network method: the cache keeps its results for the TTL). */
export function createPlcMethod(options: PlcMethodOptions): DidMethod {
  const base = options.directoryUrl.replace(/\/+$/, "");
  return {
    name: "plc",
    // the directory keeps every operation (its audit log) and lists every DID (its export);
    // a tombstone deactivates; the identifier is a hash
    traits: {
      updatable: true,
      deactivatable: true,
      enumerable: true,
      historyAvailable: true,
      humanReadable: false,
    },
    deterministic: false,
    versions: true,
    async resolve(parsed, ctx): Promise<DidResolutionResult> {
      if (!PLC_ID.test(parsed.id)) {
        return resolutionError(
          "invalidDid",
          `a did:plc is "did:plc:" and 24 characters of a-z and 2-7; "${
            parsed.id.slice(0, 60)
          }" is not`,
        );
      }
      const wanted = selection(ctx.version);
      if (typeof wanted === "string") return resolutionError("invalidDidUrl", wanted);
      const did = parsed.did;
      const url = `${base}/${did}/log/audit`;

      let res;
      try {
        res = await options.safeFetch(url, {
          headers: { accept: "application/json" },
          timeoutMs: options.timeoutMs ?? 5000,
          maxBytes: options.maxBytes ?? PLC_MAX_BYTES,
          signal: ctx.signal,
        });
      } catch (err) {
        const why = err instanceof SafeFetchError || err instanceof Error
          ? err.message
          : String(err);
        return resolutionError("internalError", `the PLC directory could not be read: ${why}`);
      }
      if (res.status === 404 || res.status === 410) {
        return resolutionError("notFound", `the PLC directory has no ${did} (${res.status})`);
      }
      if (res.status !== 200) {
        return resolutionError(
          "internalError",
          `the PLC directory answered ${res.status} instead of the audit log of ${did}`,
        );
      }
      let json: unknown;
      try {
        json = JSON.parse(decoder.decode(res.body));
      } catch {
        return resolutionError(
          "internalError",
          `the PLC directory's answer for ${did} is not JSON`,
        );
      }

      const lib = await loadPlc();
      const read = lib.readAuditLog(json);
      if (!read.ok) {
        return broken(did, { rule: "log format", index: read.index, message: read.message });
      }
      const checked = lib.verifyPlcLog(did, read.entries);
      if (!checked.ok) return broken(did, checked.failure);
      const { chain, nullified } = checked.log;

      // The state asked for: the newest valid operation, or the one selected.
      let at = chain.length - 1;
      if (wanted.time !== undefined) {
        while (at >= 0 && chain[at]!.time > wanted.time) at--;
        if (at < 0) {
          return resolutionError(
            "notFound",
            `${did} did not exist yet at ${iso(wanted.time)} (created ${chain[0]!.createdAt})`,
          );
        }
      }
      if (wanted.cid !== undefined) {
        const found = chain.findIndex((s) => s.cid === wanted.cid);
        if (found < 0 || found > at) {
          return resolutionError(
            "notFound",
            nullified.has(wanted.cid)
              ? `operation ${wanted.cid} of ${did} was nullified by a recovery: it names no version`
              : `${did} has no operation ${wanted.cid}${found > at ? " at that versionTime" : ""}`,
          );
        }
        at = found;
      }

      const state = chain[at]!;
      const next = chain[at + 1];
      const didDocumentMetadata: DidDocumentMetadata = {
        created: iso(chain[0]!.time),
        updated: iso(state.time),
        versionId: state.cid,
        ...(next ? { nextUpdate: iso(next.time), nextVersionId: next.cid } : {}),
      };
      if (state.operation.type === "plc_tombstone") {
        return {
          didDocument: null,
          didDocumentMetadata: { ...didDocumentMetadata, deactivated: true },
          didResolutionMetadata: {},
        };
      }
      return {
        didDocument: lib.plcDocument(did, state.operation),
        didDocumentMetadata,
        didResolutionMetadata: { contentType: DID_LD_JSON },
      };
    },
  };
}

/** `invalidDid` naming the broken rule. */
function broken(
  did: string,
  f: { rule: string; index?: number; message: string },
): DidResolutionResult {
  const where = f.index === undefined ? "" : ` at entry ${f.index + 1}`;
  return resolutionError(
    "invalidDid",
    `the PLC directory's log of ${did} breaks the rule "${f.rule}"${where}: ${f.message}`,
  );
}
