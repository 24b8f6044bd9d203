/**
 * The bytes a PLC operation is signed and named by: DAG-CBOR (`@ipld/dag-cbor`, canonical key
 * order), the CID of the signed operation (CIDv1, dag-cbor, sha2-256, base32), the signed bytes
 * (the operation without `sig`) and the DID a genesis operation names (`did:plc:` + the first 24
 * characters of the lower-case base32 SHA-256 of the signed genesis operation).
 *
 * @module
 */
import { encode } from "@ipld/dag-cbor";
import { sha256 } from "@noble/hashes/sha2.js";
import { base32 } from "multiformats/bases/base32";
import { CID } from "multiformats/cid";
import { create as createDigest } from "multiformats/hashes/digest";
import type { PlcAnyOperation } from "./audit_entry.ts";

const DAG_CBOR = 0x71;
const SHA2_256 = 0x12;

/** The operation's DAG-CBOR bytes and their SHA-256. */
function hashed(op: PlcAnyOperation) {
  const bytes = encode(op);
  return { bytes, hash: sha256(bytes) };
}

/** The operation's bytes and CID, computed once. */
export interface OperationBytes {
  /** CIDv1 (dag-cbor, sha2-256) of the signed operation, base32 (`bafyrei…`). */
  cid: string;
  /** DAG-CBOR of the operation without `sig`: what the signature covers. */
  unsigned: Uint8Array;
  /** `did:plc:…` named by the operation if it is a genesis operation. */
  genesisDid: string;
}

/** CID, signed bytes and the DID a genesis operation names. */
export function operationBytes(op: PlcAnyOperation): OperationBytes {
  const { hash } = hashed(op);
  const cid = CID.create(1, DAG_CBOR, createDigest(SHA2_256, hash)).toString();
  const { sig: _sig, ...unsigned } = op;
  // multiformats' base32 is RFC 4648 lower case without padding, behind a "b" multibase prefix.
  const genesisDid = `did:plc:${base32.encode(hash).slice(1, 25)}`;
  return { cid, unsigned: encode(unsigned), genesisDid };
}
