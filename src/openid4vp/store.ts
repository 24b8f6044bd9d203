/**
 * KV storage of the OpenID4VP holder.
 *
 * Keys: `keys.oid4vpRequest(orgId, id)` → {@link StoredPresentationRequest};
 * `keys.oid4vpAnswering(orgId, id)` → the lease of an accept or decline in progress. A record and
 * each change of it commit together with its `presentation.state_changed` event. Writes are
 * `atomicUpdate` steps: a lost race is read again and decided on what is there now.
 *
 * @module
 */
import { conflict, KV_DATA_MAX, notFound } from "../base/mod.ts";
import { atomicUpdate, keys, listRecords, type Page } from "../kv/mod.ts";
import { emit } from "../webhooks/mod.ts";
import type {
  PresentationRequestRecord,
  PresentationState,
  StoredPresentationRequest,
} from "./record.ts";

/** A stored request is one KV value: its JSON must stay within what one value keeps. */
export const MAX_STORED_BYTES = KV_DATA_MAX;

/** The change event: the record plus `protocol` and the state it left. */
function emitChange(
  op: Deno.AtomicOperation,
  record: PresentationRequestRecord,
  previousState: PresentationState | null,
  now: number,
): void {
  emit(op, record.orgId, "presentation.state_changed", {
    ...record,
    protocol: "openid4vp",
    previousState,
  }, now);
}

/** Stores a new request and its event. */
export async function addNewRequest(
  kv: Deno.Kv,
  stored: StoredPresentationRequest,
  now: number,
): Promise<void> {
  const key = keys.oid4vpRequest(stored.record.orgId, stored.record.id);
  await atomicUpdate(kv, (op) => {
    op.check({ key, versionstamp: null }).set(key, stored);
    emitChange(op, stored.record, null, now);
  });
}

/**
 * Writes `change` of a request (`entry`, as read) and its event. A lost race reads the request
 * again: the change is made while it is still in the state it was read in, else 409 names the
 * state it is in now. Returns the record written.
 */
export async function updateRequest(
  kv: Deno.Kv,
  entry: Deno.KvEntry<StoredPresentationRequest>,
  change: (record: PresentationRequestRecord) => PresentationRequestRecord,
  now: number,
): Promise<PresentationRequestRecord> {
  const { orgId, id, state } = entry.value.record;
  return await atomicUpdate(kv, async (op, attempt) => {
    const cur = attempt === 0 ? entry : await readRequest(kv, orgId, id);
    if (!cur) throw notFound(`No presentation request "${id}" exists in organization "${orgId}".`);
    if (cur.value.record.state !== state) {
      throw conflict(
        `Presentation request "${id}" is now in state "${cur.value.record.state}"; read it again.`,
      );
    }
    const record = change(cur.value.record);
    op.check(cur).set(keys.oid4vpRequest(orgId, id), { ...cur.value, record });
    emitChange(op, record, state, now);
    return record;
  }, {
    conflict: () =>
      conflict(`Presentation request "${id}" kept changing while this request ran; read it again.`),
  });
}

/** Reads an org's request. */
export async function readRequest(
  kv: Deno.Kv,
  orgId: string,
  id: string,
): Promise<Deno.KvEntry<StoredPresentationRequest> | null> {
  const e = await kv.get<StoredPresentationRequest>(keys.oid4vpRequest(orgId, id));
  return e.value ? e as Deno.KvEntry<StoredPresentationRequest> : null;
}

/** One page of an org's requests, newest first. */
export function listRequests(
  kv: Deno.Kv,
  orgId: string,
  q: { limit: number; cursor?: string; state?: PresentationState },
): Promise<Page<PresentationRequestRecord>> {
  return listRecords(kv, keys.oid4vpRequestPrefix(orgId), q);
}
