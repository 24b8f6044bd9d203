/**
 * Trust Ping 1.0 (Aries RFC 0048): a ping on a completed connection is answered with a
 * `ping_response` on its thread unless `response_requested` is false; responses and acks are
 * accepted silently.
 *
 * @module
 */
import { log } from "../base/mod.ts";
import type { InboundContext, MessageHandlerTable } from "./handlers.ts";
import { MessageTypes, newMessageId, threadIdOf } from "./messages.ts";
import { queueMessageOn } from "./outbound.ts";

/** Answers a ping. */
export function handleTrustPing(ctx: InboundContext): void {
  if (ctx.message.response_requested === false) return;
  queueMessageOn(ctx.op, ctx.connection!, {
    "@type": MessageTypes.trustPingResponse,
    "@id": newMessageId(),
    "~thread": { thid: threadIdOf(ctx.message) },
  }, ctx.now);
}

function noted(ctx: InboundContext): void {
  log("debug", "DIDComm message noted", {
    orgId: ctx.orgId,
    connectionId: ctx.connectionId,
    type: ctx.message["@type"],
    thid: threadIdOf(ctx.message),
  });
}

/** The trust ping handlers (and the generic ack). */
export function trustPingHandlers(): MessageHandlerTable {
  return {
    [MessageTypes.trustPing]: handleTrustPing,
    [MessageTypes.trustPingResponse]: noted,
    [MessageTypes.ack]: noted,
  };
}
