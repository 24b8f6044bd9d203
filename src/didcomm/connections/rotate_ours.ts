/**
 * DID Rotate 1.0 (Aries RFC 0794), the rotating side (us).
 *
 * When an org's `agentEndpoint` changes, every completed connection gets a new per-connection key
 * and `did:peer:2` naming the new endpoint, announced with `rotate`. (A new key, not the old one:
 * Credo finds the connection of a message by the sender key's DID and fails when two of its
 * received DIDs share a key.) Messages to the new key reach the connection at once; the record
 * keeps sending from its DID and key until the other side's `ack` (RFC: "receive messages on both
 * ... at least until the ack"), then switches. A problem report on the thread drops the pending
 * rotation. The work is an outbox job ({@link ROTATE_KIND}) committed with the agent update, so a
 * crash in the middle loses nothing: the job runs again and skips connections already rotated.
 * Ending a relationship from our side is a `hangup` ({@link hangUp}).
 *
 * @module
 */
import { conflict, log, notFound } from "../../base/mod.ts";
import { atomicUpdate, keys } from "../../kv/mod.ts";
import { enqueue, type HandlerResult, type OutboxHandler } from "../../outbox/mod.ts";
import type { DidcommDeps } from "../deps.ts";
import type { InboundContext, MessageHandlerTable } from "../handlers.ts";
import { type DidCommMessage, newMessageId, threadIdOf } from "../messages.ts";
import { queueMessageOn } from "../outbound.ts";
import { createConnectionDid } from "./connection_did.ts";
import { DidRotateTypes, remember } from "./did_rotate_messages.ts";
import { type ConnectionRecord, getConnectionEntry, saveConnection } from "./record.ts";

/** Outbox kind of "rotate every completed connection of an org to its current endpoint". */
export const ROTATE_KIND = "didcomm_rotate_dids";

/** Payload of a {@link ROTATE_KIND} job. */
export interface RotateJob {
  orgId: string;
  /** The endpoint the org's agent had when the job was queued. */
  endpoint: string;
  /** Where the previous batch of this rotation stopped (a KV list cursor). */
  cursor?: string;
}

/** Connections handled per job run; the rest go to a follow-up job, so one run stays short. */
export const ROTATE_BATCH = 200;

/** Queues, in `op`, the rotation of `orgId`'s connections to `endpoint` (call with the agent update). */
export function queueDidRotation(
  op: Deno.AtomicOperation,
  orgId: string,
  endpoint: string,
  now: number,
): void {
  enqueue<RotateJob>(op, { kind: ROTATE_KIND, orgId, payload: { orgId, endpoint } }, now);
}

/**
 * For a connection completing now: when the org's endpoint moved during the handshake (its DID
 * names the old one), queue the rotation job in the same commit, so it is rotated too.
 */
export async function rotateIfEndpointMoved(
  agents: DidcommDeps["agents"],
  ctx: InboundContext,
  conn: ConnectionRecord,
): Promise<void> {
  if (conn.endpoint === undefined) return;
  const endpoint = (await agents.find(conn.orgId))?.agentEndpoint;
  if (endpoint !== undefined && endpoint !== conn.endpoint) {
    queueDidRotation(ctx.op, conn.orgId, endpoint, ctx.now);
  }
}

/**
 * Adds to `op` the start of a rotation of our DID on a completed connection to a new key and
 * did:peer:2 naming `endpoint`: the wallet key and its connection pointer, the pending rotation on
 * the record and the `rotate` message. False (nothing added) when the connection is not completed
 * or its DID already names, or is being rotated to, that endpoint.
 */
export async function startRotation(
  deps: Pick<DidcommDeps, "wallet">,
  op: Deno.AtomicOperation,
  entry: Deno.KvEntry<ConnectionRecord>,
  rotation: { endpoint: string; agentId: string },
  now: number,
): Promise<boolean> {
  const conn = entry.value;
  if (conn.state !== "completed") return false;
  if (conn.endpoint === rotation.endpoint || conn.pendingRotation?.endpoint === rotation.endpoint) {
    return false;
  }
  const opts = { purpose: "connection" as const, now };
  const { record: key, publicKey } = await deps.wallet.newKey(conn.orgId, rotation.agentId, opts);
  const toDid = createConnectionDid(publicKey, rotation.endpoint);
  const rotate: DidCommMessage = {
    "@type": DidRotateTypes.rotate,
    "@id": newMessageId(),
    to_did: toDid,
  };
  const next: ConnectionRecord = {
    ...conn,
    pendingRotation: {
      thid: rotate["@id"],
      toDid,
      endpoint: rotation.endpoint,
      keyId: key.keyId,
      verkey: key.verkey,
    },
    updatedAt: new Date(now).toISOString(),
  };
  deps.wallet.write(op, key);
  op.set(keys.connectionByKey(conn.orgId, key.verkey), conn.id);
  saveConnection(op, entry, next, now);
  queueMessageOn(op, next, rotate, now);
  return true;
}

/** The outbox handler of {@link ROTATE_KIND}: walks the org's connections once. */
export function didRotationHandler(deps: DidcommDeps): OutboxHandler<RotateJob> {
  return {
    schedule: [5_000, 30_000, 120_000, 600_000],
    handle: (msg) => rotateOrg(deps, msg.payload),
  };
}

async function rotateOrg(deps: DidcommDeps, job: RotateJob): Promise<HandlerResult> {
  const agent = await deps.agents.find(job.orgId);
  if (!agent || agent.agentEndpoint !== job.endpoint) {
    // Removed, or changed again: the later change has its own job.
    return { ok: true };
  }
  const rotation = { endpoint: job.endpoint, agentId: agent.id };
  let started = 0;
  let seen = 0;
  const batch = deps.kv.list<ConnectionRecord>(
    { prefix: keys.connectionPrefix(job.orgId) },
    { limit: ROTATE_BATCH, ...(job.cursor ? { cursor: job.cursor } : {}) },
  );
  for await (const e of batch) {
    seen++;
    const didStart = await atomicUpdate(deps.kv, async (op, attempt) => {
      const entry = attempt === 0 ? e : await getConnectionEntry(deps.kv, job.orgId, e.value.id);
      if (!entry.value) return false;
      return await startRotation(
        deps,
        op,
        entry as Deno.KvEntry<ConnectionRecord>,
        rotation,
        deps.now(),
      );
    }).catch(() => false); // kept changing: the next run of the job takes it
    if (didStart) started++;
  }
  if (seen === ROTATE_BATCH) {
    // More may follow: the next batch is its own job (a repeat of this one is harmless).
    const op = deps.kv.atomic();
    enqueue<RotateJob>(op, {
      kind: ROTATE_KIND,
      orgId: job.orgId,
      payload: { ...job, cursor: batch.cursor },
    }, deps.now());
    await op.commit();
  }
  if (started > 0 || seen === ROTATE_BATCH) deps.dispatcher.wake();
  log("info", "DID rotation started for the org's connections", {
    orgId: job.orgId,
    endpoint: job.endpoint,
    connections: started,
    more: seen === ROTATE_BATCH,
  });
  return { ok: true };
}

function withoutPending(conn: ConnectionRecord): ConnectionRecord {
  const { pendingRotation: _done, ...rest } = conn;
  return rest;
}

/** `ack` of our `rotate`: the new DID is in use from now on. */
function handleRotateAck(ctx: InboundContext): void {
  const conn = ctx.connection!;
  const pending = conn.pendingRotation;
  const thid = threadIdOf(ctx.message);
  if (!pending || pending.thid !== thid) {
    log("info", "DID rotate ack for no pending rotation; ignored", {
      orgId: ctx.orgId,
      connectionId: ctx.connectionId,
      thid,
    });
    return;
  }
  const next: ConnectionRecord = {
    ...withoutPending(conn),
    did: pending.toDid,
    endpoint: pending.endpoint,
    ourKeyId: pending.keyId,
    ourVerkey: pending.verkey,
    previousDids: remember(conn.previousDids, conn.did),
    updatedAt: new Date(ctx.now).toISOString(),
  };
  saveConnection(ctx.op, ctx.connectionEntry, next, ctx.now);
  log("info", "connection DID rotated", {
    orgId: ctx.orgId,
    connectionId: ctx.connectionId,
    did: pending.toDid,
  });
}

/** The other side refused our `rotate`: keep the current DID. */
function handleRotateProblem(ctx: InboundContext): void {
  const conn = ctx.connection!;
  const pending = conn.pendingRotation;
  const refs = [threadIdOf(ctx.message), ctx.message["~thread"]?.pthid];
  if (!pending || !refs.includes(pending.thid)) return;
  saveConnection(ctx.op, ctx.connectionEntry, {
    ...withoutPending(conn),
    updatedAt: new Date(ctx.now).toISOString(),
  }, ctx.now);
  log("warn", "the other side refused our DID rotation; the connection keeps its DID", {
    orgId: ctx.orgId,
    connectionId: ctx.connectionId,
    description: ctx.message.description,
  });
}

/**
 * Ends a completed connection from our side: `hangup` to the other side and the record
 * `abandoned`, in one commit. 404 for an unknown connection, 409 unless it is completed.
 */
export async function hangUp(
  deps: Pick<DidcommDeps, "kv" | "dispatcher" | "now">,
  orgId: string,
  id: string,
): Promise<ConnectionRecord> {
  const next = await atomicUpdate(deps.kv, async (op) => {
    const entry = await getConnectionEntry(deps.kv, orgId, id);
    const conn = entry.value;
    if (!conn) throw notFound(`Connection "${id}" does not exist.`);
    if (conn.state !== "completed") {
      throw conflict(`Only a completed connection can be hung up; this one is ${conn.state}.`);
    }
    const now = deps.now();
    queueMessageOn(op, conn, { "@type": DidRotateTypes.hangup, "@id": newMessageId() }, now);
    const next: ConnectionRecord = {
      ...conn,
      state: "abandoned",
      errorMessage: "Ended by this side (DID Rotate hangup).",
      updatedAt: new Date(now).toISOString(),
    };
    saveConnection(op, entry, next, now);
    return next;
  }, { conflict: () => conflict(`Connection "${id}" kept changing; try again.`) });
  deps.dispatcher.wake();
  log("info", "connection hung up", { orgId, connectionId: id });
  return next;
}

/** The handlers of the rotating side (on completed connections, from the other side). */
export function rotatingHandlers(): MessageHandlerTable {
  return {
    [DidRotateTypes.ack]: handleRotateAck,
    [DidRotateTypes.problemReport]: handleRotateProblem,
  };
}
