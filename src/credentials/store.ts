/**
 * Storage of exchange records and received W3C credentials.
 *
 * Keys: `keys.credential(orgId, id)` → {@link StoredExchange}, `keys.credentialById(id)` →
 * orgId, `keys.credentialByThread(orgId, threadId)` → id, `keys.w3cCredential(orgId, id)` →
 * {@link W3cCredentialRecord}; a record and its pointers are written in one atomic operation, and
 * every state change carries its `credential.state_changed` event in the same operation.
 *
 * The offer and request attachments (each about as large as the credential) live in their own
 * values, `keys.credentialDetail(orgId, id, "offer" | "request")`, written in the same operation
 * as the record and read back with it: together they would not fit one KV value (64 KiB) for
 * credentials of 30 KB and more.
 *
 * @module
 */
import { keys, listPage, listRecords, type Page } from "../kv/mod.ts";
import { type CredentialStatus, withStatuses } from "../status/mod.ts";
import { emit } from "../webhooks/mod.ts";
import type { CredentialExchangeRecord, CredentialState, StoredExchange } from "./record.ts";

/** A stored W3C verifiable credential (Credo's `W3cCredentialRecord` JSON, JSON-LD only). */
export interface W3cCredentialRecord {
  id: string;
  createdAt: string;
  updatedAt: string;
  /** The signed credential exactly as received. */
  credential: Record<string, unknown>;
  /** The exchange that brought it (an Issue Credential exchange, or an OpenID4VCI offer). */
  credentialExchangeId: string;
  /** Its connection ("" for a credential from an OpenID4VCI offer). */
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

/** A stored W3C credential as the API shows it: with its top-level `status` (kept by `status/`). */
export type W3cCredentialView = W3cCredentialRecord & { status: CredentialStatus };

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

/**
 * Builds the stored form of a received credential. `exchange`: what brought it (an Issue
 * Credential exchange and its connection; an OpenID4VCI offer, with no connection: "").
 */
export function newW3cRecord(input: {
  id: string;
  credential: Record<string, unknown>;
  exchange: Pick<CredentialExchangeRecord, "id" | "connectionId">;
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

/** One page of an org's exchange records, newest first, optionally only those in `state`. */
export function listExchanges(
  kv: Deno.Kv,
  orgId: string,
  q: { limit: number; cursor?: string; state?: CredentialState },
): Promise<Page<CredentialExchangeRecord>> {
  return listRecords(kv, keys.credentialPrefix(orgId), q);
}

/** One page of an org's stored W3C credentials, newest first, each with its status. */
export async function listW3cCredentials(
  kv: Deno.Kv,
  orgId: string,
  q: { limit: number; cursor?: string },
): Promise<Page<W3cCredentialView>> {
  const page = await listPage<W3cCredentialRecord>(kv, keys.w3cCredentialPrefix(orgId), q);
  return { data: await withStatuses(kv, orgId, page.data), nextCursor: page.nextCursor };
}

/** One stored W3C credential of `orgId` with its status, or undefined. */
export async function readW3cCredential(
  kv: Deno.Kv,
  orgId: string,
  id: string,
): Promise<W3cCredentialView | undefined> {
  const r = (await kv.get<W3cCredentialRecord>(keys.w3cCredential(orgId, id))).value;
  return r ? (await withStatuses(kv, orgId, [r]))[0] : undefined;
}
