/**
 * Storage of exchange records (the credentials they bring are `credentials/`'s).
 *
 * Keys: `keys.credential(orgId, id)` → {@link StoredExchange}, `keys.credentialById(id)` →
 * orgId, `keys.credentialByThread(orgId, threadId)` → id; a record and its pointers are written in
 * one atomic operation, and every state change carries its `credential.state_changed` event in
 * the same operation.
 *
 * The offer and request attachments (each about as large as the credential) live in their own
 * values, `keys.credentialDetail(orgId, id, "offer" | "request")`, written in the same operation
 * as the record and read back with it: together they would not fit one KV value (64 KiB) for
 * credentials of 30 KB and more.
 *
 * @module
 */
import { keys, listRecords, type Page } from "../kv/mod.ts";
import { emit } from "../webhooks/mod.ts";
import type { CredentialExchangeRecord, CredentialState, StoredExchange } from "./record.ts";

/** Reads an exchange by id alone (through `credentialById`). */
export async function readExchange(
  kv: Deno.Kv,
  id: string,
): Promise<Deno.KvEntry<StoredExchange> | null> {
  const ptr = await kv.get<string>(keys.credentialById(id));
  if (typeof ptr.value !== "string") return null;
  return await readOrgExchange(kv, ptr.value, id);
}

/** Reads an org's exchange by id, with its offer and request attachments. */
export async function readOrgExchange(
  kv: Deno.Kv,
  orgId: string,
  id: string,
): Promise<Deno.KvEntry<StoredExchange> | null> {
  const [entry, offer, request] = await kv.getMany<
    [StoredExchange, Record<string, unknown>, Record<string, unknown>]
  >([
    keys.credential(orgId, id),
    keys.credentialDetail(orgId, id, "offer"),
    keys.credentialDetail(orgId, id, "request"),
  ]);
  if (!entry.value) return null;
  const format = { ...entry.value.format };
  if (offer.value) format.offer = offer.value;
  if (request.value) format.request = request.value;
  return { ...entry, value: { ...entry.value, format } } as Deno.KvEntry<StoredExchange>;
}

/**
 * Adds the record without its attachments, and each attachment that is new or changed (compared
 * with `prev`), to `op`.
 */
function writeExchange(
  op: Deno.AtomicOperation,
  next: StoredExchange,
  prev: StoredExchange | null,
): void {
  const { offer, request, ...format } = next.format;
  const { orgId, record } = next;
  op.set(keys.credential(orgId, record.id), { ...next, format });
  if (offer !== undefined && offer !== prev?.format.offer) {
    op.set(keys.credentialDetail(orgId, record.id, "offer"), offer);
  }
  if (request !== undefined && request !== prev?.format.request) {
    op.set(keys.credentialDetail(orgId, record.id, "request"), request);
  }
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
    .set(keys.credentialById(record.id), orgId)
    .set(keys.credentialByThread(orgId, record.threadId), record.id);
  writeExchange(op, stored, null);
  emitChange(op, orgId, record, null, now);
}

/** Adds a version-checked update of `entry` to `next` and its event to `op`. */
export function addExchangeUpdate(
  op: Deno.AtomicOperation,
  entry: Deno.KvEntry<StoredExchange>,
  next: StoredExchange,
  now: number,
): void {
  op.check(entry);
  writeExchange(op, next, entry.value);
  emitChange(op, next.orgId, next.record, entry.value.record.state, now);
}

/** One page of an org's exchange records, newest first, optionally only those in `state`. */
export function listExchanges(
  kv: Deno.Kv,
  orgId: string,
  q: { limit: number; cursor?: string; state?: CredentialState },
): Promise<Page<CredentialExchangeRecord>> {
  return listRecords(kv, keys.credentialPrefix(orgId), q);
}
