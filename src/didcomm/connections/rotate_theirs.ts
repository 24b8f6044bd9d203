/**
 * DID Rotate 1.0 (Aries RFC 0794), the observing side: a `rotate` from the other side is resolved
 * (did:peer, did:key), acked on the prior DID's service, and from then on messages go to the new
 * DID's service; keys of the new DID are accepted as senders beside the old ones (out-of-order
 * messages). A `hangup` ends the connection (`abandoned`).
 *
 * @module
 */
import { log } from "../../base/mod.ts";
import type { InboundContext, MessageHandlerTable } from "../handlers.ts";
import { newMessageId, threadIdOf } from "../messages.ts";
import { queueMessageOn } from "../outbound.ts";
import { DidCommProblem } from "../problem_report.ts";
import {
  type DidcommResolver,
  DidUnusableError,
  documentVerkeys,
  resolveDidDocument,
  targetFromDocument,
} from "../resolve.ts";
import { DidRotateTypes, MAX_THEIR_KEYS, remember } from "./did_rotate_messages.ts";
import { type ConnectionRecord, type DidCommTarget, saveConnection } from "./record.ts";

/** The other side rotates its DID: resolve it, ack on the prior DID, then use the new one. */
function rotateHandler(resolver: DidcommResolver) {
  return async (ctx: InboundContext): Promise<void> => {
    const conn = ctx.connection!;
    const toDid = ctx.message.to_did;
    if (typeof toDid !== "string" || toDid === "") {
      throw new DidCommProblem("e.did.unresolvable", "The rotate message has no to_did.");
    }
    let target: DidCommTarget;
    let verkeys: string[];
    try {
      const doc = await resolveDidDocument(resolver, toDid);
      verkeys = documentVerkeys(doc);
      try {
        target = targetFromDocument(doc);
      } catch (err) {
        throw new DidCommProblem("e.did.doc_unsupported", (err as Error).message);
      }
    } catch (err) {
      if (err instanceof DidCommProblem) throw err;
      if (!(err instanceof DidUnusableError)) throw err;
      const code = /method .* cannot be resolved/.test(err.message)
        ? "e.did.method_unsupported"
        : "e.did.unresolvable";
      throw new DidCommProblem(code, err.message);
    }
    // The ack goes to the prior DID's service (the record as it is now).
    queueMessageOn(ctx.op, conn, {
      "@type": DidRotateTypes.ack,
      "@id": newMessageId(),
      status: "OK",
      "~thread": { thid: threadIdOf(ctx.message) },
    }, ctx.now);
    const next: ConnectionRecord = {
      ...conn,
      theirDid: toDid,
      previousTheirDids: conn.theirDid
        ? remember(conn.previousTheirDids, conn.theirDid)
        : conn.previousTheirDids ?? [],
      their: target,
      // The new DID's keys last, so the bound keeps them.
      theirKeys: [...new Set([...conn.theirKeys, ...verkeys])].slice(-MAX_THEIR_KEYS),
      updatedAt: new Date(ctx.now).toISOString(),
    };
    saveConnection(ctx.op, ctx.connectionEntry, next, ctx.now);
    log("info", "the other side rotated its DID", {
      orgId: ctx.orgId,
      connectionId: ctx.connectionId,
      theirDid: toDid,
    });
  };
}

/** The other side ended the relationship. */
function handleHangup(ctx: InboundContext): void {
  const conn = ctx.connection!;
  saveConnection(ctx.op, ctx.connectionEntry, {
    ...conn,
    state: "abandoned",
    errorMessage: "The other side ended the relationship (DID Rotate hangup).",
    updatedAt: new Date(ctx.now).toISOString(),
  }, ctx.now);
}

/** The handlers of the observing side (on completed connections, from the other side). */
export function observingHandlers(resolver: DidcommResolver): MessageHandlerTable {
  return {
    [DidRotateTypes.rotate]: rotateHandler(resolver),
    [DidRotateTypes.hangup]: handleHangup,
  };
}
