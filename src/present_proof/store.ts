/**
 * Storage of proof exchange records (prover).
 *
 * Keys: `keys.proof(orgId, id)` → {@link StoredProof}, `keys.proofRequest(orgId, id)` → the DIF PE
 * request attachment (a value of its own: a definition can be large), `keys.proofById(id)` →
 * orgId, `keys.proofByThread(orgId, threadId)` → id. A record and its pointers are written in one
 * atomic operation, and every state change carries its `proof.state_changed` event in the same
 * operation.
 *
 * @module
 */
import { keys, listPage, type Page } from "../kv/mod.ts";
import { emit } from "../webhooks/mod.ts";
import type { ProofExchangeRecord, ProofState, StoredProof } from "./record.ts";
import type { PeRequest } from "./request.ts";

/** Reads an exchange by id alone (through `proofById`). */
export async function readProof(
  kv: Deno.Kv,
  id: string,
): Promise<Deno.KvEntry<StoredProof> | null> {
  const ptr = await kv.get<string>(keys.proofById(id));
  if (typeof ptr.value !== "string") return null;
  return await readOrgProof(kv, ptr.value, id);
}

/** Reads an org's exchange by id. */
export async function readOrgProof(
  kv: Deno.Kv,
  orgId: string,
  id: string,
): Promise<Deno.KvEntry<StoredProof> | null> {
  const entry = await kv.get<StoredProof>(keys.proof(orgId, id));
  return entry.value ? entry as Deno.KvEntry<StoredProof> : null;
}

/** The DIF PE request of an exchange, when it has one. */
export async function readProofRequest(
  kv: Deno.Kv,
  orgId: string,
  id: string,
): Promise<PeRequest | undefined> {
  return (await kv.get<PeRequest>(keys.proofRequest(orgId, id))).value ?? undefined;
}

/** Reads an org's exchange by thread id. */
export async function readProofByThread(
  kv: Deno.Kv,
  orgId: string,
  threadId: string,
): Promise<Deno.KvEntry<StoredProof> | null> {
  const ptr = await kv.get<string>(keys.proofByThread(orgId, threadId));
  if (typeof ptr.value !== "string") return null;
  return await readOrgProof(kv, orgId, ptr.value);
}

/** The event: the record, plus the state it left (null for a new record). */
function emitChange(
  op: Deno.AtomicOperation,
  orgId: string,
  record: ProofExchangeRecord,
  previousState: ProofState | null,
  now: number,
): void {
  emit(op, orgId, "proof.state_changed", { ...record, previousState }, now);
}

/**
 * Adds a new exchange, its request (when it has one), its pointers and its event to `op`. The
 * checks make the commit fail when the id or the thread is already taken.
 */
export function addNewProof(
  op: Deno.AtomicOperation,
  stored: StoredProof,
  request: PeRequest | undefined,
  now: number,
): void {
  const { orgId, record } = stored;
  op.check({ key: keys.proof(orgId, record.id), versionstamp: null })
    .check({ key: keys.proofById(record.id), versionstamp: null })
    .check({ key: keys.proofByThread(orgId, record.threadId), versionstamp: null })
    .set(keys.proof(orgId, record.id), stored)
    .set(keys.proofById(record.id), orgId)
    .set(keys.proofByThread(orgId, record.threadId), record.id);
  if (request) op.set(keys.proofRequest(orgId, record.id), request);
  emitChange(op, orgId, record, null, now);
}

/** Adds a version-checked update of `entry` to `next` and its event to `op`. */
export function addProofUpdate(
  op: Deno.AtomicOperation,
  entry: Deno.KvEntry<StoredProof>,
  next: StoredProof,
  now: number,
): void {
  op.check(entry).set(keys.proof(next.orgId, next.record.id), next);
  emitChange(op, next.orgId, next.record, entry.value.record.state, now);
}

/** One page of an org's stored exchanges, newest first, optionally only those in `state`. */
export function listProofs(
  kv: Deno.Kv,
  orgId: string,
  q: { limit: number; cursor?: string; state?: ProofState },
): Promise<Page<StoredProof>> {
  return listPage<StoredProof>(kv, keys.proofPrefix(orgId), {
    limit: q.limit,
    cursor: q.cursor,
    filter: q.state ? (s) => s.record.state === q.state : undefined,
  });
}
