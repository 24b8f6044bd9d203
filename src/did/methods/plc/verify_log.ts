/**
 * Verifies a did:plc audit log the way the PLC specification and its reference implementations
 * (did-method-plc's directory, go-didplc's `VerifyOpLog`) do, replaying every entry in order,
 * nullified ones included:
 *
 * - every entry is of the requested DID and its `cid` is the CID of its operation;
 * - the first operation is a genesis operation (`prev` null, a `plc_operation` or a legacy
 *   `create`) that hashes to the DID and is signed by one of its own rotation keys; no later
 *   operation is a genesis operation;
 * - every later operation names an earlier one as `prev` and is signed (low-S) by a rotation key
 *   of that operation; after a tombstone nothing follows (a tombstone has no rotation keys);
 * - an operation whose `prev` is not the newest valid operation is a recovery: it must be signed
 *   by a key of higher priority (earlier in `rotationKeys`) than the key that signed the operation
 *   it displaces, within 72 hours of it; it nullifies that operation and everything after it;
 *   nothing may build on a nullified operation; `createdAt` increases;
 * - the `nullified` flags the directory states are the ones the rules give.
 *
 * The result is the chain of valid operations; the first rule broken is named otherwise.
 *
 * @module
 */
import type { PlcAnyOperation, PlcAuditEntry } from "./audit_entry.ts";
import { operationBytes } from "./op_bytes.ts";
import { findSigner } from "./signature.ts";

/** The rules a log can break (named in the `invalidDid` message). */
export type PlcRule =
  | "log format"
  | "same DID"
  | "CID"
  | "genesis"
  | "genesis hash"
  | "signature encoding"
  | "signature"
  | "prev"
  | "tombstone"
  | "nullified prev"
  | "recovery key"
  | "recovery window"
  | "time order"
  | "nullified flags";

/** One valid (not nullified) operation of the verified chain. */
export interface PlcState {
  cid: string;
  operation: PlcAnyOperation;
  /** `createdAt` as the directory gave it, and in ms. */
  createdAt: string;
  time: number;
}

/** A verified log: the valid chain in order, and the CIDs of the nullified operations. */
export interface VerifiedPlcLog {
  chain: PlcState[];
  nullified: Set<string>;
}

/** A broken rule: which, at which entry (0-based), and why. */
export interface PlcRuleFailure {
  rule: PlcRule;
  index?: number;
  message: string;
}

/** The verified log, or the first rule it breaks. */
export type PlcLogCheck = { ok: true; log: VerifiedPlcLog } | {
  ok: false;
  failure: PlcRuleFailure;
};

/** The recovery window of the PLC specification. */
export const RECOVERY_WINDOW_MS = 72 * 3600 * 1000;

/** What the replay keeps per operation (go-didplc's OpEntry). */
interface Node {
  entry: PlcAuditEntry;
  nullified: boolean;
  /** The CID of the newest operation that names this one as `prev`. */
  lastChild?: string;
  /** Keys that may still sign an operation after this one (shrinks as children are signed). */
  allowedKeys: string[];
  /** The full rotation keys of this operation. */
  rotationKeys: string[];
}

/** The rotation keys an operation gives: legacy `create` → [recoveryKey, signingKey]. */
export function rotationKeysOf(op: PlcAnyOperation): string[] {
  if (op.type === "plc_tombstone") return [];
  if (op.type === "create") return [op.recoveryKey, op.signingKey];
  return op.rotationKeys;
}

/** Replays `entries` (an audit log of `did`) and returns the valid chain or the broken rule. */
export function verifyPlcLog(did: string, entries: readonly PlcAuditEntry[]): PlcLogCheck {
  const fail = (rule: PlcRule, index: number | undefined, message: string): PlcLogCheck => ({
    ok: false,
    failure: { rule, index, message },
  });
  if (entries.length === 0) return fail("log format", undefined, "the audit log has no entries");
  const nodes = new Map<string, Node>();
  let head: Node | undefined;

  for (let i = 0; i < entries.length; i++) {
    const entry = entries[i]!;
    const op = entry.operation;
    if (entry.did !== did) return fail("same DID", i, `the entry is of ${entry.did}, not ${did}`);
    const bytes = operationBytes(op);
    if (bytes.cid !== entry.cid) {
      return fail("CID", i, `the operation's CID is ${bytes.cid}, but the entry says ${entry.cid}`);
    }
    if (nodes.has(bytes.cid)) return fail("prev", i, `operation ${bytes.cid} appears twice`);
    const rotationKeys = rotationKeysOf(op);
    const node: Node = { entry, nullified: false, allowedKeys: rotationKeys, rotationKeys };

    if (head === undefined) {
      // Genesis: no prev, hashes to the DID, signed by one of its own rotation keys.
      if (op.prev !== null) {
        return fail(
          "genesis",
          i,
          "the first operation has a prev, so it is not a genesis operation",
        );
      }
      if (bytes.genesisDid !== did) {
        return fail(
          "genesis hash",
          i,
          `the genesis operation hashes to ${bytes.genesisDid}, not ${did}`,
        );
      }
      const signer = findSigner(op.sig, bytes.unsigned, rotationKeys);
      if (!signer.ok) {
        if (signer.encoding) return fail("signature encoding", i, signer.message);
        return fail(
          "signature",
          i,
          `the genesis operation is not signed by one of its own rotation keys: ${signer.message}`,
        );
      }
      nodes.set(bytes.cid, node);
      head = node;
      continue;
    }

    if (op.prev === null) return fail("genesis", i, "a second genesis operation (prev is null)");
    const prev = nodes.get(op.prev);
    if (prev === undefined) return fail("prev", i, `prev ${op.prev} names no earlier operation`);
    if (prev.entry.operation.type === "plc_tombstone") {
      return fail("tombstone", i, `the operation follows the tombstone ${op.prev}`);
    }
    const signer = findSigner(op.sig, bytes.unsigned, prev.allowedKeys);
    if (!signer.ok) {
      if (signer.encoding) return fail("signature encoding", i, signer.message);
      // Signed by a rotation key of prev, but not one that outranks the key that signed the
      // operation this one would nullify: the recovery rule, not a foreign signature.
      const any = prev.allowedKeys.length < prev.rotationKeys.length
        ? findSigner(op.sig, bytes.unsigned, prev.rotationKeys)
        : undefined;
      if (any?.ok) {
        return fail(
          "recovery key",
          i,
          `the operation is signed by rotation key ${any.index} of ${op.prev}, which does not ` +
            `outrank the key that signed the operation after ${op.prev}`,
        );
      }
      return fail(
        "signature",
        i,
        `the operation is not signed by a rotation key of the operation it follows (${op.prev}): ${signer.message}`,
      );
    }
    if (prev.nullified) return fail("nullified prev", i, `prev ${op.prev} was nullified`);

    if (prev.lastChild === undefined) {
      if (entry.time <= prev.entry.time) {
        return fail(
          "time order",
          i,
          `createdAt ${entry.createdAt} is not after prev's ${prev.entry.createdAt}`,
        );
      }
    } else {
      // A recovery: later than the newest operation, within 72 h of each one it nullifies.
      if (entry.time <= head.entry.time) {
        return fail(
          "time order",
          i,
          `createdAt ${entry.createdAt} is not after ${head.entry.createdAt}`,
        );
      }
      for (let cid: string | undefined = prev.lastChild; cid !== undefined;) {
        const displaced: Node = nodes.get(cid)!;
        if (entry.time - displaced.entry.time > RECOVERY_WINDOW_MS) {
          return fail(
            "recovery window",
            i,
            `the operation would nullify ${cid} of ${displaced.entry.createdAt}, more than 72 hours earlier`,
          );
        }
        displaced.nullified = true;
        cid = displaced.lastChild;
      }
    }
    prev.allowedKeys = prev.allowedKeys.slice(0, signer.index);
    prev.lastChild = bytes.cid;
    nodes.set(bytes.cid, node);
    head = node;
  }

  const chain: PlcState[] = [];
  const nullified = new Set<string>();
  for (let i = 0; i < entries.length; i++) {
    const entry = entries[i]!;
    const node = nodes.get(entry.cid)!;
    if (node.nullified !== entry.nullified) {
      return fail(
        "nullified flags",
        i,
        `the directory says nullified=${entry.nullified}, the rules give nullified=${node.nullified}`,
      );
    }
    if (node.nullified) nullified.add(entry.cid);
    else {
      chain.push({
        cid: entry.cid,
        operation: entry.operation,
        createdAt: entry.createdAt,
        time: entry.time,
      });
    }
  }
  return { ok: true, log: { chain, nullified } };
}
