/**
 * KV storage of credential statuses, beside the credentials (which the features store):
 * `keys.credentialStatus(orgId, id)` → {@link StoredStatus} (what is checked, the last answer, when
 * it is due again) and `keys.credentialStatusDue(atMs, orgId, id)`, the recheck index, written in
 * the same atomic operation. A change of `state` carries its `credential.status_changed` event in
 * that operation too.
 *
 * @module
 */
import { keys } from "../kv/mod.ts";
import { emit } from "../webhooks/mod.ts";
import type { CredentialFormat, CredentialStatus, StatusTarget } from "./types.ts";

/** What is kept of one credential's status. */
export interface StoredStatus {
  orgId: string;
  /** The credential's id (its record in the feature's store). */
  id: string;
  format: CredentialFormat;
  target: StatusTarget;
  status: CredentialStatus;
  /** When the recheck cron takes it again (ms), or null (no cron rechecks). */
  dueAt: number | null;
  /**
   * The last status a list gave (never `unknown`): kept when a later check cannot read the list,
   * so that a revocation or suspension seen once still keeps the credential out of presentations.
   */
  known?: CredentialStatus;
}

/** The last status a list gave for `s` (its `known`, or its `status` when that is not unknown). */
export function knownStatus(s: StoredStatus | undefined): CredentialStatus | undefined {
  if (!s) return undefined;
  return s.status.state !== "unknown" ? s.status : s.known;
}

/** Adds the first status of a new credential (and its recheck pointer) to `op`. */
export function addStatus(op: Deno.AtomicOperation, s: StoredStatus): void {
  const key = keys.credentialStatus(s.orgId, s.id);
  const { known: _, ...value } = s;
  op.check({ key, versionstamp: null }).set(key, value);
  if (s.dueAt !== null) op.set(keys.credentialStatusDue(s.dueAt, s.orgId, s.id), true);
}

/** Adds a version-checked change of a status to `op`; a new `state` emits its event. */
export function addStatusUpdate(
  op: Deno.AtomicOperation,
  entry: Deno.KvEntry<StoredStatus> | null,
  next: StoredStatus,
  now: number,
): void {
  const key = keys.credentialStatus(next.orgId, next.id);
  const prev = entry?.value;
  const { known: _, ...value } = next;
  const known = next.status.state === "unknown" ? knownStatus(prev) : undefined;
  op.check(entry ?? { key, versionstamp: null }).set(key, known ? { ...value, known } : value);
  if (prev?.dueAt != null && prev.dueAt !== next.dueAt) {
    op.delete(keys.credentialStatusDue(prev.dueAt, prev.orgId, prev.id));
  }
  if (next.dueAt !== null) op.set(keys.credentialStatusDue(next.dueAt, next.orgId, next.id), true);
  if ((prev?.status.state ?? "unknown") !== next.status.state) {
    emit(op, next.orgId, "credential.status_changed", {
      id: next.id,
      orgId: next.orgId,
      format: next.format,
      status: next.status,
    }, now);
  }
}

/** One credential's stored status, or null. */
export async function readStatus(
  kv: Deno.Kv,
  orgId: string,
  id: string,
): Promise<Deno.KvEntry<StoredStatus> | null> {
  const e = await kv.get<StoredStatus>(keys.credentialStatus(orgId, id));
  return e.value ? e as Deno.KvEntry<StoredStatus> : null;
}

/** The status of a credential stored before statuses were kept (or whose status is missing). */
export function notChecked(createdAt: string): CredentialStatus {
  return {
    state: "unknown",
    checkedAt: createdAt,
    message: "The status has not been checked yet.",
  };
}

/**
 * `records` of `orgId`, each with its top-level `status` (what `GET` returns): one read of up to
 * ten statuses at a time.
 */
export async function withStatuses<T extends { id: string; createdAt: string }>(
  kv: Deno.Kv,
  orgId: string,
  records: T[],
): Promise<(T & { status: CredentialStatus })[]> {
  const out: (T & { status: CredentialStatus })[] = [];
  for (let i = 0; i < records.length; i += 10) {
    const slice = records.slice(i, i + 10);
    const entries = await kv.getMany<StoredStatus[]>(
      slice.map((r) => keys.credentialStatus(orgId, r.id)),
    );
    slice.forEach((r, j) => {
      out.push({ ...r, status: entries[j]?.value?.status ?? notChecked(r.createdAt) });
    });
  }
  return out;
}
