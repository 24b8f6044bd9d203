/**
 * Storage of exchange records and received W3C credentials.
 *
 * Keys: `keys.credential(orgId, id)` → {@link StoredExchange}, `keys.credentialById(id)` →
 * orgId, `keys.credentialByThread(orgId, threadId)` → id, `keys.w3cCredential(orgId, id)` →
 * {@link W3cCredentialRecord}; a record and its pointers are written in one atomic operation, and
 * every state change carries its `credential.state_changed` event in the same operation.
 *
 * @module
 */
import { keys } from "../kv/keys.ts";
import { emit } from "../webhooks/emit.ts";
import type { CredentialExchangeRecord, CredentialState, StoredExchange } from "./record.ts";

/** A stored W3C verifiable credential (Credo's `W3cCredentialRecord` JSON, JSON-LD only). */
export interface W3cCredentialRecord {
  id: string;
  createdAt: string;
  updatedAt: string;
  /** The signed credential exactly as received. */
  credential: Record<string, unknown>;
  /** The exchange that brought it. */
  credentialExchangeId: string;
  connectionId: string;
  _tags: {
    claimFormat: "ldp_vc";
    issuerId: string;
    subjectIds: string[];
    contexts: string[];
    types: string[];
    proofTypes: string[];
    givenId?: string;
  };
}

/** Reads an exchange by id alone (through `credentialById`). */
export async function readExchange(
  kv: Deno.Kv,
  id: string,
): Promise<Deno.KvEntry<StoredExchange> | null> {
  const ptr = await kv.get<string>(keys.credentialById(id));
  if (typeof ptr.value !== "string") return null;
  const entry = await kv.get<StoredExchange>(keys.credential(ptr.value, id));
  return entry.value ? entry as Deno.KvEntry<StoredExchange> : null;
}

/** Reads an org's exchange by id. */
export async function readOrgExchange(
  kv: Deno.Kv,
  orgId: string,
  id: string,
): Promise<Deno.KvEntry<StoredExchange> | null> {
  const entry = await kv.get<StoredExchange>(keys.credential(orgId, id));
  return entry.value ? entry as Deno.KvEntry<StoredExchange> : null;
}

/** Reads an org's exchange by thread id. */
export async function readExchangeByThread(
  kv: Deno.Kv,
  orgId: string,
  threadId: string,
): Promise<Deno.KvEntry<StoredExchange> | null> {
  const ptr = await kv.get<string>(keys.credentialByThread(orgId, threadId));
  if (typeof ptr.value !== "string") return null;
  return await readOrgExchange(kv, orgId, ptr.value);
}

/** The event payload: the record, plus the state it left (null for a new record). */
function emitChange(
  op: Deno.AtomicOperation,
  orgId: string,
  record: CredentialExchangeRecord,
  previousState: CredentialState | null,
  now: number,
): void {
  emit(op, orgId, "credential.state_changed", { ...record, previousState }, now);
}

/**
 * Adds a new exchange, its id and thread pointers and its event to `op`. The checks make the
 * commit fail when the id or the thread is already taken.
 */
export function addNewExchange(op: Deno.AtomicOperation, stored: StoredExchange, now: number) {
  const { orgId, record } = stored;
  op.check({ key: keys.credential(orgId, record.id), versionstamp: null })
    .check({ key: keys.credentialById(record.id), versionstamp: null })
    .check({ key: keys.credentialByThread(orgId, record.threadId), versionstamp: null })
    .set(keys.credential(orgId, record.id), stored)
    .set(keys.credentialById(record.id), orgId)
    .set(keys.credentialByThread(orgId, record.threadId), record.id);
  emitChange(op, orgId, record, null, now);
}

/** Adds a version-checked update of `entry` to `next` and its event to `op`. */
export function addExchangeUpdate(
  op: Deno.AtomicOperation,
  entry: Deno.KvEntry<StoredExchange>,
  next: StoredExchange,
  now: number,
): void {
  op.check(entry).set(keys.credential(next.orgId, next.record.id), next);
  emitChange(op, next.orgId, next.record, entry.value.record.state, now);
}

/** Builds the stored form of a received credential. */
export function newW3cRecord(input: {
  id: string;
  credential: Record<string, unknown>;
  exchange: CredentialExchangeRecord;
  now: number;
}): W3cCredentialRecord {
  const vc = input.credential;
  const at = new Date(input.now).toISOString();
  const list = (v: unknown): unknown[] => (Array.isArray(v) ? v : v === undefined ? [] : [v]);
  const issuer = vc.issuer;
  const subjects = list(vc.credentialSubject) as Record<string, unknown>[];
  return {
    id: input.id,
    createdAt: at,
    updatedAt: at,
    credential: vc,
    credentialExchangeId: input.exchange.id,
    connectionId: input.exchange.connectionId,
    _tags: {
      claimFormat: "ldp_vc",
      issuerId: typeof issuer === "string"
        ? issuer
        : String((issuer as Record<string, unknown>)?.id ?? ""),
      subjectIds: subjects.map((s) => s?.id).filter((x): x is string => typeof x === "string"),
      contexts: list(vc["@context"]).filter((c): c is string => typeof c === "string"),
      types: list(vc.type).map(String),
      proofTypes: list(vc.proof).map((p) => String((p as Record<string, unknown>)?.type)),
      ...(typeof vc.id === "string" ? { givenId: vc.id } : {}),
    },
  };
}

/** Adds a W3C credential to `op` (the id must be new). */
export function addW3cCredential(
  op: Deno.AtomicOperation,
  orgId: string,
  record: W3cCredentialRecord,
): void {
  op.check({ key: keys.w3cCredential(orgId, record.id), versionstamp: null })
    .set(keys.w3cCredential(orgId, record.id), record);
}
