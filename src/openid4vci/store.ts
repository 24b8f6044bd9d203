/**
 * KV storage of the OpenID4VCI holder's offers: `keys.oid4vcOffer(orgId, id)` →
 * {@link StoredOffer}. An offer's change and its `credential.state_changed` event are written in
 * one atomic operation (with the credentials it brings, which `credentials/` stores).
 *
 * @module
 */
import { keys, listRecords, type Page } from "../kv/mod.ts";
import { emit } from "../webhooks/mod.ts";
import type { OfferRecord, OfferState, StoredOffer } from "./record.ts";

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
