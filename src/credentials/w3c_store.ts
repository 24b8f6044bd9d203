/**
 * The stored W3C verifiable credentials (JSON-LD) of an org: `keys.w3cCredential(orgId, id)` →
 * {@link W3cCredentialRecord}, Credo's `W3cCredentialRecord` JSON. Read back with the status
 * `status/` keeps for each.
 *
 * @module
 */
import { keys, listPage, type Page } from "../kv/mod.ts";
import { type CredentialStatus, withStatuses } from "../status/mod.ts";

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

/** Builds the stored form of a received credential. */
export function newW3cRecord(input: {
  id: string;
  credential: Record<string, unknown>;
  /**
   * What brought it: an Issue Credential exchange and its connection, or an OpenID4VCI offer with
   * no connection ("").
   */
  exchange: { id: string; connectionId: string };
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
