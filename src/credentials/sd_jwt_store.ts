/**
 * The stored SD-JWT VCs of an org. Keys: `keys.sdJwtCredential(orgId, id)` → the credential's head
 * (everything but `claims` and `compact`) with its part count, and
 * `keys.sdJwtCredentialPart(orgId, id, i)` → up to `KV_DATA_MAX` bytes of the JSON of
 * `{claims, compact}`: a large SD-JWT never meets the KV value limit. A credential and its parts
 * are written in one atomic operation (with whatever brought it). Read back with the status
 * `status/` keeps for each.
 *
 * @module
 */
import { KV_DATA_MAX } from "../base/mod.ts";
import { keys, listPage, type Page } from "../kv/mod.ts";
import { type CredentialStatus, withStatuses } from "../status/mod.ts";

/** A stored SD-JWT VC as the API shows it. No private key material. */
export interface SdJwtCredentialRecord {
  id: string;
  orgId: string;
  offerId: string;
  vct: string;
  issuer: string;
  /** The issuer's plain claims and every disclosed claim, nested as in the payload. */
  claims: Record<string, unknown>;
  /** The SD-JWT as received. */
  compact: string;
  createdAt: string;
}

/** A stored SD-JWT VC as reads return it: with its top-level `status` (kept by `status/`). */
export type SdJwtCredentialView = SdJwtCredentialRecord & { status: CredentialStatus };

const PART_BYTES = KV_DATA_MAX;
const encoder = new TextEncoder();
const decoder = new TextDecoder();

/** The stored head of a credential. */
type CredentialHead = Omit<SdJwtCredentialRecord, "claims" | "compact"> & { parts: number };

/** Adds a new stored credential (head and parts) to `op`. */
export function addSdJwtCredential(op: Deno.AtomicOperation, c: SdJwtCredentialRecord): void {
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
export async function readSdJwtCredential(
  kv: Deno.Kv,
  orgId: string,
  id: string,
): Promise<SdJwtCredentialView | undefined> {
  const head = (await kv.get<CredentialHead>(keys.sdJwtCredential(orgId, id))).value;
  return head ? await withParts(kv, head) : undefined;
}

/** One page of an org's stored SD-JWT VCs, newest first. */
export function listSdJwtCredentials(
  kv: Deno.Kv,
  orgId: string,
  q: { limit: number; cursor?: string },
): Promise<Page<SdJwtCredentialView>> {
  return listPage<CredentialHead, SdJwtCredentialView>(kv, keys.sdJwtCredentialPrefix(orgId), {
    ...q,
    map: (head) => withParts(kv, head),
  });
}
