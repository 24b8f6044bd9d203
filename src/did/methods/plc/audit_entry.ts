import { isObject } from "../../../base/mod.ts";
/**
 * The entries of a PLC directory's audit log (`GET {directory}/{did}/log/audit`), read strictly:
 * each operation must have exactly the members of one of the three kinds the PLC specification
 * defines (`plc_operation`, `plc_tombstone` and the legacy genesis `create`), every member of the
 * type it must have. An operation with a member more or less would hash to a CID that no
 * conforming directory computed, so it is refused here rather than later as a CID mismatch.
 *
 * @module
 */

/** A service of a `plc_operation`. */
export interface PlcService {
  type: string;
  endpoint: string;
}

/** A regular operation (genesis when `prev` is null). */
export interface PlcOperation {
  type: "plc_operation";
  rotationKeys: string[];
  verificationMethods: Record<string, string>;
  alsoKnownAs: string[];
  services: Record<string, PlcService>;
  prev: string | null;
  sig: string;
}

/** The legacy genesis operation of the first did:plc DIDs (2022). */
export interface PlcLegacyCreate {
  type: "create";
  signingKey: string;
  recoveryKey: string;
  handle: string;
  service: string;
  prev: null;
  sig: string;
}

/** The operation that ends a DID. */
export interface PlcTombstone {
  type: "plc_tombstone";
  prev: string;
  sig: string;
}

/** Any operation of a log. */
export type PlcAnyOperation = PlcOperation | PlcLegacyCreate | PlcTombstone;

/** One audit log entry, as the directory states it. */
export interface PlcAuditEntry {
  did: string;
  operation: PlcAnyOperation;
  /** The CID the directory gives (checked against the operation by the verifier). */
  cid: string;
  nullified: boolean;
  /** `createdAt` as given, and in ms since the epoch. */
  createdAt: string;
  time: number;
}

/** The entries, or which entry is malformed and why. */
export type ReadAuditLog =
  | { ok: true; entries: PlcAuditEntry[] }
  | { ok: false; index?: number; message: string };

// RFC 3339 date-time with a zone, as the directory writes `createdAt`.
const DATE_TIME = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(?:\.\d+)?(?:Z|[+-]\d{2}:\d{2})$/i;

const MEMBERS = {
  plc_operation: [
    "type",
    "rotationKeys",
    "verificationMethods",
    "alsoKnownAs",
    "services",
    "prev",
    "sig",
  ],
  create: ["type", "signingKey", "recoveryKey", "handle", "service", "prev", "sig"],
  plc_tombstone: ["type", "prev", "sig"],
} as const;

const isStringArray = (v: unknown): v is string[] =>
  Array.isArray(v) && v.every((s) => typeof s === "string");

/** Why `op` is not one of the three operation kinds, or undefined when it is one. */
export function operationProblem(op: unknown): string | undefined {
  if (!isObject(op)) return "the operation is not a JSON object";
  const type = op.type;
  if (type !== "plc_operation" && type !== "create" && type !== "plc_tombstone") {
    return `the operation type ${
      JSON.stringify(type)
    } is not plc_operation, plc_tombstone or create`;
  }
  const want: readonly string[] = MEMBERS[type];
  const extra = Object.keys(op).filter((k) => !want.includes(k));
  if (extra.length > 0) return `a ${type} has no member ${JSON.stringify(extra[0])}`;
  const missing = want.filter((k) => !(k in op));
  if (missing.length > 0) return `the ${type} has no ${JSON.stringify(missing[0])}`;
  if (typeof op.sig !== "string" || op.sig === "") return `the ${type} is not signed`;
  if (type === "plc_tombstone") {
    return typeof op.prev === "string" ? undefined : "a plc_tombstone's prev must be a CID string";
  }
  if (type === "create") {
    for (const k of ["signingKey", "recoveryKey", "handle", "service"]) {
      if (typeof op[k] !== "string") return `the create operation's ${k} is not a string`;
    }
    return op.prev === null ? undefined : "a create operation's prev must be null";
  }
  if (op.prev !== null && typeof op.prev !== "string") return "prev must be a CID string or null";
  if (!isStringArray(op.rotationKeys)) return "rotationKeys must be an array of strings";
  if (!isStringArray(op.alsoKnownAs)) return "alsoKnownAs must be an array of strings";
  const vms = op.verificationMethods;
  if (!isObject(vms) || !Object.values(vms).every((v) => typeof v === "string")) {
    return "verificationMethods must map names to did:key strings";
  }
  const services = op.services;
  if (!isObject(services)) return "services must be an object";
  for (const [id, s] of Object.entries(services)) {
    if (
      !isObject(s) || Object.keys(s).length !== 2 || typeof s.type !== "string" ||
      typeof s.endpoint !== "string"
    ) {
      return `service ${JSON.stringify(id)} must have exactly a string type and endpoint`;
    }
  }
  return undefined;
}

/** Reads the parsed JSON of an audit log into entries, or says which entry is malformed. */
export function readAuditLog(json: unknown): ReadAuditLog {
  if (!Array.isArray(json)) return { ok: false, message: "the audit log is not a JSON array" };
  if (json.length === 0) return { ok: false, message: "the audit log has no entries" };
  const entries: PlcAuditEntry[] = [];
  for (let i = 0; i < json.length; i++) {
    const e: unknown = json[i];
    const bad = (message: string): ReadAuditLog => ({ ok: false, index: i, message });
    if (!isObject(e)) return bad("the entry is not a JSON object");
    if (typeof e.did !== "string") return bad("the entry has no did");
    if (typeof e.cid !== "string") return bad("the entry has no cid");
    if (typeof e.nullified !== "boolean") return bad("the entry's nullified is not true or false");
    const time = typeof e.createdAt === "string" && DATE_TIME.test(e.createdAt)
      ? Date.parse(e.createdAt)
      : NaN;
    if (!Number.isFinite(time)) return bad("the entry's createdAt is not an RFC 3339 date-time");
    const problem = operationProblem(e.operation);
    if (problem !== undefined) return bad(problem);
    entries.push({
      did: e.did,
      operation: e.operation as PlcAnyOperation,
      cid: e.cid,
      nullified: e.nullified,
      createdAt: e.createdAt as string,
      time,
    });
  }
  return { ok: true, entries };
}
