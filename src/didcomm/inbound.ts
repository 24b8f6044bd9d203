/**
 * Inbound DIDComm: an envelope POSTed to `/didcomm` is decrypted with the org wallet key it is
 * addressed to, and the plaintext is stored durably (outbox kind {@link INBOUND_KIND}) in the same
 * commit as its `didcomm_seen` marker, so a repeated message `@id` (from the same sender) is
 * stored once. The outbox then processes it asynchronously: the registered handler of its type
 * runs and its writes commit together with the marker turning `processed`, so it is acted on
 * once. A handler's `DidCommProblem` (or an unexpected error) becomes a problem report to the
 * sender; nothing becomes an HTTP 500.
 *
 * @module
 */
import type { Wallet, WalletKey } from "../agents/mod.ts";
import { ConflictError, KV_VALUE_LIMIT, log } from "../base/mod.ts";
import { atomicUpdate, keys } from "../kv/mod.ts";
import { enqueue, type HandlerResult, type OutboxHandler } from "../outbox/mod.ts";
import { countDidcommMessage, inSpan } from "../telemetry/mod.ts";
import { EnvelopeError, type UnpackedMessage, unpackMessage } from "./envelope.ts";
import { parseForward } from "./forward.ts";
import { type DidCommMessage, isDidCommMessage } from "./messages.ts";
import { findConnectionByKey } from "./connections/record.ts";
import type { InboundContext, MessageHandlers } from "./handlers.ts";
import {
  DidCommProblem,
  mayAnswerWithProblem,
  MESSAGE_PARSE_FAILURE,
  problemReportFor,
} from "./problem_report.ts";
import { queueMessageOn } from "./outbound.ts";

/** Outbox kind of received messages waiting to be processed. */
export const INBOUND_KIND = "didcomm_inbound";
/** Largest envelope body accepted by `POST /didcomm` (bytes); larger is 400. */
export const MAX_ENVELOPE_BYTES = 96 * 1024;
/** Largest decrypted message (bytes of JSON) accepted: one KV value, with room for its marker. */
export const MAX_INBOUND_MESSAGE_BYTES = KV_VALUE_LIMIT - 8 * 1024;
/** How long a message `@id` is remembered. */
export const SEEN_TTL_MS = 30 * 24 * 3_600_000;
/** Retries of processing that failed for a transient reason (KV contention or outage). */
export const INBOUND_SCHEDULE: readonly number[] = [500, 2_000, 10_000, 60_000, 300_000];

/** What inbound processing uses. */
export interface InboundDeps {
  kv: Deno.Kv;
  wallet: Wallet;
  handlers: MessageHandlers;
  dispatcher: { wake(): void };
  now: () => number;
}

/** A stored received message. */
export interface InboundPayload {
  orgId: string;
  recipientKey: string;
  senderKey: string | null;
  message: DidCommMessage;
  /** The `didcomm_seen` id: `{senderKey or "anon"}:{@id}`. */
  seenId: string;
  receivedAt: string;
}

/** Value of `keys.didcommSeen(orgId, seenId)`. */
export interface SeenMarker {
  status: "received" | "processed";
  type: string;
  receivedAt: string;
  processedAt?: string;
  outboxId: string;
}

/**
 * A message too large to store, from the other side of a completed connection: it gets a problem
 * report on its thread (so the sender's exchange ends with a reason instead of waiting).
 */
async function answerTooLarge(deps: InboundDeps, payload: InboundPayload, size: number) {
  const found = await findConnectionByKey(deps.kv, payload.orgId, payload.recipientKey);
  const conn = found?.value;
  log("info", "DIDComm message too large to accept", {
    orgId: payload.orgId,
    type: payload.message["@type"].slice(0, 200),
    bytes: size,
    connectionId: conn?.id ?? null,
  });
  if (
    !conn || conn.state !== "completed" || !payload.senderKey ||
    !conn.theirKeys.includes(payload.senderKey) || !mayAnswerWithProblem(payload.message)
  ) {
    return;
  }
  const op = deps.kv.atomic();
  queueMessageOn(
    op,
    conn,
    problemReportFor(
      payload.message,
      "message-too-large",
      `The message is ${size} bytes; this agent accepts DIDComm messages of at most ` +
        `${MAX_INBOUND_MESSAGE_BYTES} bytes.`,
    ),
    deps.now(),
  );
  if ((await op.commit()).ok) deps.dispatcher.wake();
}

/** Outcome of {@link receiveEnvelope}. */
export type ReceiveResult = { stored: true; orgId: string; duplicate: boolean };

/**
 * Decrypts and stores one envelope. Throws `EnvelopeError` for anything undecryptable, not for
 * us, malformed or too large (the route answers 400 with no detail).
 */
export async function receiveEnvelope(
  deps: InboundDeps,
  body: Uint8Array,
): Promise<ReceiveResult> {
  if (body.length > MAX_ENVELOPE_BYTES) throw new EnvelopeError("envelope too large", "too_large");
  const opened = new Map<string, WalletKey>();
  const find = async (verkey: string) => {
    const k = opened.get(verkey) ?? await deps.wallet.findByVerkey(verkey);
    if (k) opened.set(verkey, k);
    return k?.secretKey;
  };
  // Decrypt up to the envelope cap, so that a message too large to store is known and answered.
  const limits = { maxCiphertextBytes: MAX_ENVELOPE_BYTES, maxRecipients: 16 };
  let unpacked: UnpackedMessage = await unpackMessage(body, find, limits);
  const forward = parseForward(unpacked.message);
  if (forward) unpacked = await unpackMessage(forward.msg, find, limits); // one hop, to us
  for (const k of opened.values()) if (k.verkey !== unpacked.recipientKey) k.secretKey.fill(0);
  const key = opened.get(unpacked.recipientKey)!;
  key.secretKey.fill(0);
  const message = unpacked.message;
  if (!isDidCommMessage(message) || parseForward(message)) {
    throw new EnvelopeError("malformed message", "malformed");
  }
  const now = deps.now();
  const seenId = `${unpacked.senderKey ?? "anon"}:${message["@id"]}`;
  const payload: InboundPayload = {
    orgId: key.orgId,
    recipientKey: unpacked.recipientKey,
    senderKey: unpacked.senderKey ?? null,
    message,
    seenId,
    receivedAt: new Date(now).toISOString(),
  };
  const size = new TextEncoder().encode(JSON.stringify(payload)).length;
  if (size > MAX_INBOUND_MESSAGE_BYTES) {
    await answerTooLarge(deps, payload, size);
    throw new EnvelopeError("message too large", "too_large");
  }
  const seenKey = keys.didcommSeen(key.orgId, seenId);
  const op = deps.kv.atomic().check({ key: seenKey, versionstamp: null });
  const queued = enqueue(op, { kind: INBOUND_KIND, orgId: key.orgId, payload }, now);
  const marker: SeenMarker = {
    status: "received",
    type: message["@type"].slice(0, 200),
    receivedAt: payload.receivedAt,
    outboxId: queued.id,
  };
  op.set(seenKey, marker, { expireIn: SEEN_TTL_MS });
  const res = await op.commit();
  if (!res.ok) return { stored: true, orgId: key.orgId, duplicate: true };
  deps.dispatcher.wake();
  countDidcommMessage("in", message["@type"]);
  return { stored: true, orgId: key.orgId, duplicate: false };
}

/** Why a message was not given to its handler. */
type Skip = { skip: string };

/** Runs the handler of `ctx.message`; returns a reason when the message is dropped instead. */
async function runHandler(
  handlers: MessageHandlers,
  ctx: InboundContext,
): Promise<Skip | undefined> {
  const reg = handlers.find(ctx.message["@type"]);
  if (!reg) {
    throw new DidCommProblem(
      MESSAGE_PARSE_FAILURE,
      `Message type ${ctx.message["@type"].slice(0, 200)} is not supported.`,
    );
  }
  if (!ctx.connection && reg.options.requiresConnection) return { skip: "no connection" };
  if (ctx.connection && !reg.options.acceptBeforeCompleted) {
    if (ctx.connection.state !== "completed") return { skip: `connection ${ctx.connection.state}` };
    if (!ctx.senderKey || !ctx.connection.theirKeys.includes(ctx.senderKey)) {
      return { skip: "sender is not the connection's other side" };
    }
  }
  await reg.handler(ctx);
  return undefined;
}

function markProcessed(
  op: Deno.AtomicOperation,
  seen: Deno.KvEntryMaybe<SeenMarker>,
  p: InboundPayload,
  outboxId: string,
  now: number,
): void {
  const key = keys.didcommSeen(p.orgId, p.seenId);
  const marker: SeenMarker = {
    status: "processed",
    type: p.message["@type"].slice(0, 200),
    receivedAt: p.receivedAt,
    processedAt: new Date(now).toISOString(),
    outboxId,
  };
  op.check(seen).set(key, marker, { expireIn: SEEN_TTL_MS });
}

/** A handler refused the message (DidCommProblem) or failed on it. */
class HandlerFailure extends Error {
  constructor(readonly reason: unknown) {
    super("the message handler failed");
  }
}

/** Processes one stored message (at most once in effect); retried on contention. */
async function processInbound(
  deps: InboundDeps,
  outboxId: string,
  p: InboundPayload,
): Promise<HandlerResult> {
  const fields = { orgId: p.orgId, type: p.message["@type"], id: p.message["@id"] };
  const seenKey = keys.didcommSeen(p.orgId, p.seenId);
  const changing = (): HandlerResult => ({
    ok: false,
    error: "The message's records kept changing while it was processed.",
  });
  try {
    // The handler's writes commit together with the marker turning "processed".
    await atomicUpdate(deps.kv, async (op) => {
      const seen = await deps.kv.get<SeenMarker>(seenKey);
      if (seen.value?.status === "processed") return;
      const entry = await findConnectionByKey(deps.kv, p.orgId, p.recipientKey) ?? null;
      const now = deps.now();
      markProcessed(op, seen, p, outboxId, now);
      const ctx: InboundContext = {
        orgId: p.orgId,
        connectionId: entry?.value?.id ?? null,
        connection: entry?.value ?? null,
        connectionEntry: entry,
        message: p.message,
        senderKey: p.senderKey,
        recipientKey: p.recipientKey,
        op,
        now,
      };
      let skipped: Skip | undefined;
      try {
        skipped = await runHandler(deps.handlers, ctx);
      } catch (err) {
        if (err instanceof ConflictError) throw err;
        throw new HandlerFailure(err);
      }
      if (skipped) log("warn", "inbound DIDComm message dropped", { ...fields, why: skipped.skip });
    });
  } catch (err) {
    if (err instanceof ConflictError) return changing();
    if (!(err instanceof HandlerFailure)) throw err;
    const problem = err.reason instanceof DidCommProblem ? err.reason : undefined;
    if (!problem) log("error", "inbound DIDComm handler failed", { ...fields, error: err.reason });
    else log("info", "inbound DIDComm message refused", { ...fields, code: problem.code });
    try {
      // None of the handler's writes: only the marker, and a problem report to the sender.
      await atomicUpdate(deps.kv, async (op) => {
        const seen = await deps.kv.get<SeenMarker>(seenKey);
        if (seen.value?.status === "processed") return;
        const entry = await findConnectionByKey(deps.kv, p.orgId, p.recipientKey);
        const now = deps.now();
        markProcessed(op, seen, p, outboxId, now);
        if (entry?.value && mayAnswerWithProblem(p.message)) {
          const report = problem
            ? problemReportFor(p.message, problem.code, problem.message)
            : problemReportFor(
              p.message,
              "processing-error",
              "The message could not be processed.",
            );
          queueMessageOn(op, entry.value, report, now);
        }
      });
    } catch (again) {
      if (again instanceof ConflictError) return changing();
      throw again;
    }
  }
  deps.dispatcher.wake();
  return { ok: true };
}

/** The outbox handler of {@link INBOUND_KIND}. */
export function inboundProcessingHandler(deps: InboundDeps): OutboxHandler<InboundPayload> {
  return {
    schedule: INBOUND_SCHEDULE,
    handle: (msg) =>
      inSpan("didcomm.inbound", {
        attributes: {
          "didcomm.type": msg.payload.message["@type"].slice(0, 200),
          "org.id": msg.payload.orgId,
        },
        causedBy: msg.trace,
      }, () => processInbound(deps, msg.id, msg.payload)),
    onDead(msg) {
      log("error", "inbound DIDComm message could not be processed", {
        orgId: msg.orgId,
        outboxId: msg.id,
        type: msg.payload.message["@type"],
        error: msg.lastError,
      });
    },
  };
}
