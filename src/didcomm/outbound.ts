/**
 * Outbound DIDComm messages through the outbox (kind {@link DIDCOMM_KIND}): a message is added to
 * the caller's atomic operation together with the state change that causes it, then packed
 * (Authcrypt with our per-connection key) for the connection's recipient keys, wrapped for its
 * routing keys (RFC 0094) and POSTed to its endpoint with the safe client
 * (`application/didcomm-envelope-enc`). Retries per {@link DIDCOMM_SCHEDULE}; a dead message
 * emits `message.delivery_failed` in the dead-letter commit.
 *
 * @module
 */
import type { Wallet } from "../agents/mod.ts";
import {
  enqueue,
  type HandlerResult,
  type OutboxHandler,
  type OutboxMessage,
} from "../outbox/mod.ts";
import { type SafeFetch, SafeFetchError } from "../outbound/mod.ts";
import { countDidcommMessage } from "../telemetry/mod.ts";
import { emit } from "../webhooks/mod.ts";
import { packMessage } from "./envelope.ts";
import { wrapForRouting } from "./forward.ts";
import { type DidCommMessage, isDidCommMessage, threadIdOf } from "./messages.ts";
import type { ConnectionRecord, DidCommTarget } from "./connections/record.ts";
import { KV_VALUE_LIMIT } from "../base/mod.ts";

/** Outbox kind of outbound DIDComm messages. */
export const DIDCOMM_KIND = "didcomm";

/** Retry delays: 1 s, 5 s, 30 s, 5 min, 30 min, 2 h, 5 h, 10 h; dead after 9 attempts. */
export const DIDCOMM_SCHEDULE: readonly number[] = [
  1_000,
  5_000,
  30_000,
  5 * 60_000,
  30 * 60_000,
  2 * 3_600_000,
  5 * 3_600_000,
  10 * 3_600_000,
];

/** Largest plaintext message queued (bytes of JSON): one KV value, with room for its target. */
export const MAX_OUTBOUND_MESSAGE_BYTES = KV_VALUE_LIMIT - 8 * 1024;

/** Content type of RFC 0019 envelopes (what Credo accepts). */
export const ENVELOPE_CONTENT_TYPE = "application/didcomm-envelope-enc";

/** The outbox payload: everything needed to pack and send, frozen at queue time. */
export interface OutboundPayload {
  orgId: string;
  connectionId: string;
  /** Our sender key: `keys.agentKey(orgId, senderKeyId)`. */
  senderKeyId: string;
  senderVerkey: string;
  target: DidCommTarget;
  message: DidCommMessage;
}

/**
 * Adds `message` for `connection` to `op`. Sent (at least once) only if `op` commits; call
 * `deps.dispatcher.wake()` after the commit. Throws a plain Error for a message without `@type` /
 * `@id` or larger than {@link MAX_OUTBOUND_MESSAGE_BYTES}.
 */
export function queueMessageOn(
  op: Deno.AtomicOperation,
  connection: ConnectionRecord,
  message: DidCommMessage,
  now: number,
): OutboxMessage<OutboundPayload> {
  if (!isDidCommMessage(message)) throw new Error("A DIDComm message needs a @type and an @id.");
  const size = new TextEncoder().encode(JSON.stringify(message)).length;
  if (size > MAX_OUTBOUND_MESSAGE_BYTES) {
    throw new Error(`The DIDComm message is ${size} bytes; at most ${MAX_OUTBOUND_MESSAGE_BYTES}.`);
  }
  const payload: OutboundPayload = {
    orgId: connection.orgId,
    connectionId: connection.id,
    senderKeyId: connection.ourKeyId,
    senderVerkey: connection.ourVerkey,
    target: connection.their,
    message,
  };
  return enqueue(op, { kind: DIDCOMM_KIND, orgId: connection.orgId, payload }, now);
}

/** Input of `DidcommService.queueMessage`. */
export interface QueueMessageInput {
  orgId: string;
  connectionId: string;
  message: DidCommMessage;
  /** Default true: 409 unless the connection is `completed`. */
  requireCompleted?: boolean;
}

const RETRYABLE_4XX = new Set([408, 425, 429]);
const FINAL_FETCH_ERRORS = new Set(["invalid_url", "https_required", "blocked_address"]);

/** What delivery uses. */
export interface DeliveryDeps {
  wallet: Wallet;
  safeFetch: SafeFetch;
}

/** Packs and POSTs one outbound message. */
async function deliver(
  deps: DeliveryDeps,
  p: OutboundPayload,
  signal: AbortSignal,
): Promise<HandlerResult> {
  const key = await deps.wallet.openKey(p.orgId, p.senderKeyId);
  if (!key) {
    return { ok: false, final: true, error: "Our sender key no longer exists (agent removed)." };
  }
  let body: string;
  try {
    const packed = await packMessage(p.message, {
      recipientKeys: p.target.recipientKeys,
      sender: { verkey: key.verkey, secretKey: key.secretKey },
    });
    const first = p.target.recipientKeys[0]!;
    body = JSON.stringify(await wrapForRouting(packed, first, p.target.routingKeys));
  } catch (err) {
    return { ok: false, final: true, error: `The message cannot be packed: ${String(err)}` };
  } finally {
    key.secretKey.fill(0);
  }
  try {
    const res = await deps.safeFetch(p.target.endpoint, {
      method: "POST",
      headers: { "content-type": ENVELOPE_CONTENT_TYPE },
      body,
      timeoutMs: 15_000,
      maxBytes: 256 * 1024,
      signal,
    });
    if (res.status >= 200 && res.status < 300) {
      countDidcommMessage("out", p.message["@type"]);
      return { ok: true, status: res.status };
    }
    const retryAfter = Number(res.headers.get("retry-after"));
    return {
      ok: false,
      status: res.status,
      error: `The peer answered HTTP ${res.status}.`,
      final: res.status >= 400 && res.status < 500 && !RETRYABLE_4XX.has(res.status),
      ...(Number.isFinite(retryAfter) && retryAfter > 0 ? { retryAfterMs: retryAfter * 1000 } : {}),
    };
  } catch (err) {
    if (err instanceof SafeFetchError) {
      return { ok: false, error: err.message, final: FINAL_FETCH_ERRORS.has(err.kind) };
    }
    throw err;
  }
}

/** The outbox handler of {@link DIDCOMM_KIND}. */
export function didcommDeliveryHandler(deps: DeliveryDeps): OutboxHandler<OutboundPayload> {
  return {
    schedule: DIDCOMM_SCHEDULE,
    handle: (msg, { signal }) => deliver(deps, msg.payload, signal),
    onDead(msg, op, now) {
      const p = msg.payload;
      emit(op, p.orgId, "message.delivery_failed", {
        outboxId: msg.id,
        connectionId: p.connectionId,
        messageId: p.message["@id"],
        messageType: p.message["@type"],
        threadId: threadIdOf(p.message),
        endpoint: p.target.endpoint,
        attempts: msg.attempts,
        lastStatus: msg.lastStatus ?? null,
        lastError: msg.lastError ?? null,
      }, now);
    },
  };
}
