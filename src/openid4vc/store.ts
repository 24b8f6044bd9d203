/**
 * KV storage of the OpenID4VCI holder.
 *
 * Keys: `keys.oid4vcOffer(orgId, id)` → {@link StoredOffer}; `keys.sdJwtCredential(orgId, id)` →
 * the credential's head (everything but `claims` and `compact`) with its part count, and
 * `keys.sdJwtCredentialPart(orgId, id, i)` → up to 60 000 bytes of the JSON of `{claims, compact}`:
 * a large SD-JWT never meets the 64 KiB value limit. A credential and its parts are written in one
 * atomic operation with the offer's change and its `credential.state_changed` event.
 *
 * @module
 */
import { addW3cCredential } from "../credentials/mod.ts";
import { keys, listPage, listRecords, type Page } from "../kv/mod.ts";
import { type StatusService, type StatusSubject, withStatuses } from "../status/mod.ts";
import { emit } from "../webhooks/mod.ts";
import type { Receipt } from "./receipt.ts";
import type {
  OfferRecord,
  OfferState,
  SdJwtCredentialRecord,
  SdJwtCredentialView,
  StoredOffer,
} from "./record.ts";

const PART_BYTES = 60_000;
const encoder = new TextEncoder();
const decoder = new TextDecoder();

/** The stored head of a credential. */
type CredentialHead = Omit<SdJwtCredentialRecord, "claims" | "compact"> & { parts: number };

/** The offer's change event: the record plus `protocol` and the state it left. */
function emitChange(
  op: Deno.AtomicOperation,
  record: OfferRecord,
  previousState: OfferState | null,
  now: number,
): void {
  emit(op, record.orgId, "credential.state_changed", {
    ...record,
    protocol: "openid4vci",
    previousState,
  }, now);
}

/** Adds a new offer and its event to `op`. */
export function addNewOffer(op: Deno.AtomicOperation, stored: StoredOffer, now: number): void {
  const key = keys.oid4vcOffer(stored.record.orgId, stored.record.id);
  op.check({ key, versionstamp: null }).set(key, stored);
  emitChange(op, stored.record, null, now);
}

/** Adds a version-checked change of an offer to `op`, and its event when the state changed. */
export function addOfferUpdate(
  op: Deno.AtomicOperation,
  entry: Deno.KvEntry<StoredOffer>,
  next: StoredOffer,
  now: number,
): void {
  op.check(entry).set(keys.oid4vcOffer(next.record.orgId, next.record.id), next);
  const previous = entry.value.record.state;
  if (next.record.state !== previous) emitChange(op, next.record, previous, now);
}

/** Reads an org's offer. */
export async function readOffer(
  kv: Deno.Kv,
  orgId: string,
  id: string,
): Promise<Deno.KvEntry<StoredOffer> | null> {
  const e = await kv.get<StoredOffer>(keys.oid4vcOffer(orgId, id));
  return e.value ? e as Deno.KvEntry<StoredOffer> : null;
}

/** One page of an org's offers, newest first. */
export function listOffers(
  kv: Deno.Kv,
  orgId: string,
  q: { limit: number; cursor?: string; state?: OfferState },
): Promise<Page<OfferRecord>> {
  return listRecords(kv, keys.oid4vcOfferPrefix(orgId), q);
}

/** Adds a new stored credential (head and parts) to `op`. */
export function addCredential(op: Deno.AtomicOperation, c: SdJwtCredentialRecord): void {
  const { claims, compact, ...head } = c;
  const bytes = encoder.encode(JSON.stringify({ claims, compact }));
  const parts = Math.max(1, Math.ceil(bytes.length / PART_BYTES));
  const key = keys.sdJwtCredential(c.orgId, c.id);
  op.check({ key, versionstamp: null }).set(key, { ...head, parts } satisfies CredentialHead);
  for (let i = 0; i < parts; i++) {
    op.set(
      keys.sdJwtCredentialPart(c.orgId, c.id, i),
      bytes.slice(i * PART_BYTES, (i + 1) * PART_BYTES),
    );
  }
}

/**
 * Adds every credential of a receipt to `op`, each with its status when it has one (kept by
 * `status/`): SD-JWT VCs to this store, W3C JSON-LD credentials (`ldp_vc`) to the org's W3C store
 * (`credentials/`), where the credentials from DIDComm are.
 */
export function addReceipt(op: Deno.AtomicOperation, status: StatusService, r: Receipt): void {
  const stored: Array<[string, StatusSubject]> = [];
  for (const c of r.records) {
    addCredential(op, c);
    stored.push([c.id, { format: "dc+sd-jwt", compact: c.compact }]);
  }
  for (const c of r.w3c) {
    addW3cCredential(op, r.orgId, c);
    stored.push([c.id, { format: "ldp_vc", credential: c.credential }]);
  }
  for (const [id, subject] of stored) {
    const s = r.statuses.get(id);
    if (s) status.record(op, { orgId: r.orgId, id, subject, status: s });
  }
}

/** The credential from its head and parts, with its status (kept by `status/`). */
async function withParts(kv: Deno.Kv, head: CredentialHead): Promise<SdJwtCredentialView> {
  const partKeys = Array.from(
    { length: head.parts },
    (_, i) => keys.sdJwtCredentialPart(head.orgId, head.id, i),
  );
  const chunks: Uint8Array[] = [];
  for (let i = 0; i < partKeys.length; i += 10) {
    for (const e of await kv.getMany<Uint8Array[]>(partKeys.slice(i, i + 10))) {
      if (!(e.value instanceof Uint8Array)) {
        throw new Error(`credential ${head.id}: a part is missing`);
      }
      chunks.push(e.value);
    }
  }
  const all = new Uint8Array(chunks.reduce((n, c) => n + c.length, 0));
  let at = 0;
  for (const c of chunks) {
    all.set(c, at);
    at += c.length;
  }
  const { claims, compact } = JSON.parse(decoder.decode(all));
  const { parts: _parts, ...rest } = head;
  return (await withStatuses(kv, head.orgId, [{ ...rest, claims, compact }]))[0]!;
}

/** One stored credential of `orgId`, or undefined. */
export async function readCredential(
  kv: Deno.Kv,
  orgId: string,
  id: string,
): Promise<SdJwtCredentialView | undefined> {
  const head = (await kv.get<CredentialHead>(keys.sdJwtCredential(orgId, id))).value;
  return head ? await withParts(kv, head) : undefined;
}

/** One page of an org's stored SD-JWT VCs, newest first. */
export function listCredentials(
  kv: Deno.Kv,
  orgId: string,
  q: { limit: number; cursor?: string },
): Promise<Page<SdJwtCredentialView>> {
  return listPage<CredentialHead, SdJwtCredentialView>(kv, keys.sdJwtCredentialPrefix(orgId), {
    ...q,
    map: (head) => withParts(kv, head),
  });
}
