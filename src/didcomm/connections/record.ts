/**
 * DIDComm connection records (Credo's ConnectionRecord JSON, CONTRACT.md "Credential exchange
 * (holder)"): what is stored, what callers see, lookups and the one place that writes a record
 * together with its indexes and its `connection.state_changed` event.
 *
 * Stored at `keys.connection(orgId, id)` (id: UUID v7, so the key order is creation order) with
 * pointers `keys.connectionByThread(orgId, threadId)` and `keys.connectionByKey(orgId, ourVerkey)`.
 *
 * @module
 */
import { keys } from "../../kv/mod.ts";
import { emit } from "../../webhooks/mod.ts";
import type { HandshakeProtocol } from "../messages.ts";

/** DID Exchange states (RFC 0023), also used for Connections 1.0 records as Credo does. */
export const CONNECTION_STATES = [
  "start",
  "invitation-received",
  "request-sent",
  "response-received",
  "completed",
  "abandoned",
] as const;

/** One of {@link CONNECTION_STATES}. */
export type ConnectionState = typeof CONNECTION_STATES[number];

/** Where messages for the other side go: packed for `recipientKeys`, wrapped for `routingKeys`. */
export interface DidCommTarget {
  /** base58 Ed25519 verkeys. */
  recipientKeys: string[];
  /** base58 Ed25519 verkeys of mediators, nearest the recipient first. */
  routingKeys: string[];
  /** http(s) endpoint. */
  endpoint: string;
}

/** What callers and webhooks see (CONTRACT.md). */
export interface ConnectionView {
  id: string;
  createdAt: string;
  updatedAt: string;
  state: ConnectionState;
  role: "requester";
  did: string;
  theirDid: string | null;
  theirLabel: string | null;
  outOfBandId: string;
  threadId: string;
  protocol: HandshakeProtocol;
  errorMessage?: string;
}

/** The stored record: the view plus what the DIDComm layer needs (no secrets). */
export interface ConnectionRecord extends ConnectionView {
  orgId: string;
  /** `@id` of the received invitation (the handshake's `pthid`). */
  invitationId: string;
  /** base58 verkeys of the invitation: the response must be signed by one of them. */
  invitationKeys: string[];
  /** Our per-connection wallet key (`keys.agentKey(orgId, ourKeyId)`). */
  ourKeyId: string;
  ourVerkey: string;
  /** Where to send messages; the invitation's service until the response names their DID's. */
  their: DidCommTarget;
  /** Keys the other side may authcrypt from once the connection is completed. */
  theirKeys: string[];
  /**
   * The agent endpoint our DID names (absent on records made before rotation existed: then the
   * endpoint the agent had when the connection was made).
   */
  endpoint?: string;
  /**
   * Our DID rotation (RFC 0794) announced and not yet acked: the `rotate` `@id`, the new DID, the
   * endpoint it names, and its key (already a wallet key, with its `connectionByKey` pointer).
   */
  pendingRotation?: {
    thid: string;
    toDid: string;
    endpoint: string;
    keyId: string;
    verkey: string;
  };
  /** Our DIDs on this connection before rotations, oldest first. */
  previousDids?: string[];
  /** Their DIDs before they rotated, oldest first. */
  previousTheirDids?: string[];
}

/** The public view of a stored record. */
export function connectionView(r: ConnectionRecord): ConnectionView {
  return {
    id: r.id,
    createdAt: r.createdAt,
    updatedAt: r.updatedAt,
    state: r.state,
    role: r.role,
    did: r.did,
    theirDid: r.theirDid,
    theirLabel: r.theirLabel,
    outOfBandId: r.outOfBandId,
    threadId: r.threadId,
    protocol: r.protocol,
    ...(r.errorMessage !== undefined ? { errorMessage: r.errorMessage } : {}),
  };
}

/** Reads one record with its versionstamp. */
export async function getConnectionEntry(
  kv: Deno.Kv,
  orgId: string,
  id: string,
): Promise<Deno.KvEntryMaybe<ConnectionRecord>> {
  return await kv.get<ConnectionRecord>(keys.connection(orgId, id));
}

/** Reads one record of `orgId`; undefined when it does not exist (or belongs to another org). */
export async function getConnection(
  kv: Deno.Kv,
  orgId: string,
  id: string,
): Promise<ConnectionRecord | undefined> {
  return (await getConnectionEntry(kv, orgId, id)).value ?? undefined;
}

/** The connection on which we use `ourVerkey` (an inbound envelope's recipient key). */
export async function findConnectionByKey(
  kv: Deno.Kv,
  orgId: string,
  ourVerkey: string,
): Promise<Deno.KvEntryMaybe<ConnectionRecord> | undefined> {
  const ptr = await kv.get<string>(keys.connectionByKey(orgId, ourVerkey));
  if (!ptr.value) return undefined;
  const entry = await getConnectionEntry(kv, orgId, ptr.value);
  return entry.value ? entry : undefined;
}

/**
 * Adds the write of `next` to `op`: checked against `prev` (absent for a new record), indexes for
 * a new record, and one `connection.state_changed` event per state in `states` (the states passed
 * through in this commit, in order; default: `next.state` when it differs from the previous one).
 */
export function saveConnection(
  op: Deno.AtomicOperation,
  prev: Deno.KvEntryMaybe<ConnectionRecord> | null,
  next: ConnectionRecord,
  now: number,
  states?: ConnectionState[],
): void {
  const key = keys.connection(next.orgId, next.id);
  op.check({ key, versionstamp: prev?.versionstamp ?? null }).set(key, next);
  if (!prev?.value) {
    op.check({ key: keys.connectionByThread(next.orgId, next.threadId), versionstamp: null })
      .set(keys.connectionByThread(next.orgId, next.threadId), next.id)
      .check({ key: keys.connectionByKey(next.orgId, next.ourVerkey), versionstamp: null })
      .set(keys.connectionByKey(next.orgId, next.ourVerkey), next.id);
  }
  let previous: ConnectionState | null = prev?.value?.state ?? null;
  const passed = states ?? (previous === next.state ? [] : [next.state]);
  for (const [i, state] of passed.entries()) {
    const view = { ...connectionView(next), state };
    emit(op, next.orgId, "connection.state_changed", {
      connectionId: next.id,
      state,
      previousState: previous,
      connection: view,
    }, now + i); // +i keeps several events of one commit in order

    previous = state;
  }
}
