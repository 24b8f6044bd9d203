/**
 * DID Exchange 1.1 (Aries RFC 0023), requester side: the request with our per-connection
 * `did:peer:2` (no attachment needed: it resolves by itself), the response (its `did_rotate~attach`
 * or `did_doc~attach` must be signed by the invitation key), and the `complete` message.
 *
 * @module
 */
import type { DidDocument } from "../../did/mod.ts";
import type { DidcommDeps } from "../deps.ts";
import type { InboundContext } from "../handlers.ts";
import { type DidCommMessage, MessageTypes, newMessageId, threadIdOf } from "../messages.ts";
import { queueMessageOn } from "../outbound.ts";
import { DidCommProblem } from "../problem_report.ts";
import { type DidcommResolver, DidUnusableError, resolveDidDocument } from "../resolve.ts";
import { abandonConnection } from "./abandon.ts";
import { acceptResponse } from "./accept_response.ts";
import { type ConnectionRecord, saveConnection } from "./record.ts";
import { rotateIfEndpointMoved } from "./rotate_ours.ts";
import { verifySignedAttachment } from "./signatures.ts";

/** The DID Exchange request answering invitation `invitationId`. */
export function didExchangeRequest(
  did: string,
  label: string,
  invitationId: string,
): DidCommMessage {
  return {
    "@type": MessageTypes.didExchangeRequest,
    "@id": newMessageId(),
    label,
    did,
    "~thread": { pthid: invitationId },
  };
}

const PROBLEM = "response_not_accepted";

/** Verifies the response and returns their DID document. Throws DidCommProblem. */
async function theirDocument(
  resolver: DidcommResolver,
  msg: DidCommMessage,
  conn: ConnectionRecord,
): Promise<DidDocument> {
  const did = msg.did;
  if (typeof did !== "string" || !did.startsWith("did:")) {
    throw new DidCommProblem(PROBLEM, "The response has no DID.");
  }
  const rotate = msg["did_rotate~attach"];
  const docAttach = msg["did_doc~attach"];
  if (rotate !== undefined) {
    const payload = verifySignedAttachment(rotate, conn.invitationKeys, PROBLEM);
    if (new TextDecoder().decode(payload) !== did) {
      throw new DidCommProblem(PROBLEM, "The response's signed DID is not the DID it names.");
    }
    try {
      return await resolveDidDocument(resolver, did);
    } catch (err) {
      if (err instanceof DidUnusableError) throw new DidCommProblem(PROBLEM, err.message);
      throw err;
    }
  }
  if (docAttach !== undefined) {
    const payload = verifySignedAttachment(docAttach, conn.invitationKeys, PROBLEM);
    let doc: unknown;
    try {
      doc = JSON.parse(new TextDecoder("utf-8", { fatal: true }).decode(payload));
    } catch {
      throw new DidCommProblem(PROBLEM, "The response's DID document is not JSON.");
    }
    if (typeof doc !== "object" || doc === null || (doc as DidDocument).id !== did) {
      throw new DidCommProblem(
        PROBLEM,
        "The response's DID document is not the document of its DID.",
      );
    }
    return doc as DidDocument;
  }
  throw new DidCommProblem(PROBLEM, "The response is not signed with the invitation key.");
}

/** The handler of `didexchange/1.x/response` on a connection of ours in `request-sent`. */
export function didExchangeResponseHandler(deps: Pick<DidcommDeps, "resolver" | "agents">) {
  return (ctx: InboundContext) => handleDidExchangeResponse(deps, ctx);
}

async function handleDidExchangeResponse(
  deps: Pick<DidcommDeps, "resolver" | "agents">,
  ctx: InboundContext,
): Promise<void> {
  const conn = ctx.connection!;
  const entry = ctx.connectionEntry!;
  if (conn.state === "completed" || conn.state === "abandoned") return; // late duplicate
  if (conn.state !== "request-sent" || threadIdOf(ctx.message) !== conn.threadId) {
    throw new DidCommProblem(PROBLEM, "No DID Exchange request of ours awaits this response.");
  }
  let doc: DidDocument;
  let next: ConnectionRecord;
  try {
    doc = await theirDocument(deps.resolver, ctx.message, conn);
    next = acceptResponse(
      conn,
      ctx.message.did as string,
      doc,
      ctx.senderKey,
      "The response was not sent with a key of the DID it names.",
      ctx.now,
    );
  } catch (err) {
    if (!(err instanceof DidCommProblem)) throw err;
    abandonConnection(ctx, err);
    return;
  }
  saveConnection(ctx.op, entry, next, ctx.now, ["response-received", "completed"]);
  await rotateIfEndpointMoved(deps.agents, ctx, next);
  queueMessageOn(ctx.op, next, {
    "@type": MessageTypes.didExchangeComplete,
    "@id": newMessageId(),
    "~thread": { thid: conn.threadId, pthid: conn.invitationId },
  }, ctx.now);
}
