/**
 * KV storage of the OpenID4VP holder.
 *
 * Keys: `keys.oid4vpRequest(orgId, id)` → {@link StoredPresentationRequest};
 * `keys.oid4vpAnswering(orgId, id)` → the lease of an accept or decline in progress. A record and
 * each change of it commit together with its `presentation.state_changed` event.
 *
 * @module
 */
import { commitOrConflict, keys, listPage, type Page } from "../kv/mod.ts";
import { emit } from "../webhooks/mod.ts";
import type {
  PresentationRequestRecord,
  PresentationState,
  StoredPresentationRequest,
} from "./record.ts";

/** A stored request is one KV value: its JSON must stay under the 64 KiB value limit. */
export const MAX_STORED_BYTES = 60_000;

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
  const op = kv.atomic().check({ key, versionstamp: null }).set(key, stored);
  emitChange(op, stored.record, null, now);
  await commitOrConflict(op);
}

/** Writes a version-checked change of a request and its event. */
export async function updateRequest(
  kv: Deno.Kv,
  entry: Deno.KvEntry<StoredPresentationRequest>,
  record: PresentationRequestRecord,
  now: number,
): Promise<void> {
  const next: StoredPresentationRequest = { ...entry.value, record };
  const op = kv.atomic().check(entry).set(keys.oid4vpRequest(record.orgId, record.id), next);
  emitChange(op, record, entry.value.record.state, now);
  await commitOrConflict(
    op,
    `Presentation request "${record.id}" was changed by another request; read it again.`,
  );
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
export async function listRequests(
  kv: Deno.Kv,
  orgId: string,
  q: { limit: number; cursor?: string; state?: PresentationState },
): Promise<Page<PresentationRequestRecord>> {
  const page = await listPage<StoredPresentationRequest>(kv, keys.oid4vpRequestPrefix(orgId), {
    limit: q.limit,
    cursor: q.cursor,
    filter: q.state ? (s) => s.record.state === q.state : undefined,
  });
  return { data: page.data.map((s) => s.record), nextCursor: page.nextCursor };
}

/**
 * Takes the lease of answering request `id` (an accept or a decline); false while another
 * answer holds it. The returned function gives it back.
 */
export async function takeAnsweringLease(
  kv: Deno.Kv,
  orgId: string,
  id: string,
  now: number,
  leaseMs: number,
): Promise<(() => Promise<void>) | undefined> {
  const key = keys.oid4vpAnswering(orgId, id);
  const held = await kv.get<{ until: number }>(key);
  if (held.value && held.value.until > now) return undefined;
  const res = await kv.atomic().check(held)
    .set(key, { until: now + leaseMs }, { expireIn: leaseMs * 2 }).commit();
  if (!res.ok) return undefined;
  return async () => {
    await kv.atomic().check({ key, versionstamp: res.versionstamp }).delete(key).commit();
  };
}
