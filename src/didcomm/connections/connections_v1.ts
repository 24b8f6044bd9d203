/**
 * Connections 1.0 (Aries RFC 0160), invitee side: the request carries an unqualified DID and a
 * legacy DID document for our per-connection key; the response's `connection~sig` must be signed
 * by the invitation key; then a trust ping (which makes Credo complete the connection).
 *
 * @module
 */
import { base58 } from "@scure/base";
import type { DidDocument } from "../../did/mod.ts";
import type { DidcommDeps } from "../deps.ts";
import type { InboundContext } from "../handlers.ts";
import { type DidCommMessage, MessageTypes, newMessageId, threadIdOf } from "../messages.ts";
import { queueMessageOn } from "../outbound.ts";
import { DidCommProblem } from "../problem_report.ts";
import { abandonConnection } from "./abandon.ts";
import { acceptResponse } from "./accept_response.ts";
import { type ConnectionRecord, saveConnection } from "./record.ts";
import { rotateIfEndpointMoved } from "./rotate_ours.ts";
import { verifyConnectionSig } from "./signatures.ts";

/** The unqualified DID of a key: base58 of its first 16 bytes (Indy convention). */
export function legacyDid(publicKey: Uint8Array): string {
  return base58.encode(publicKey.subarray(0, 16));
}

/** The legacy DID document (as Credo and ACA-Py write it) of our key and endpoint. */
export function legacyDidDoc(
  did: string,
  verkey: string,
  endpoint: string,
): Record<string, unknown> {
  return {
    "@context": "https://www.w3.org/ns/did/v1",
    id: did,
    publicKey: [{
      id: `${did}#1`,
      type: "Ed25519VerificationKey2018",
      controller: did,
      publicKeyBase58: verkey,
    }],
    authentication: [{ type: "Ed25519SignatureAuthentication2018", publicKey: `${did}#1` }],
    service: [{
      id: `${did};indy`,
      type: "IndyAgent",
      priority: 0,
      recipientKeys: [verkey],
      routingKeys: [],
      serviceEndpoint: endpoint,
    }],
  };
}

/** The Connections 1.0 request answering invitation `invitationId`. */
export function connectionsRequest(
  did: string,
  verkey: string,
  endpoint: string,
  label: string,
  invitationId: string,
): DidCommMessage {
  const id = newMessageId();
  return {
    "@type": MessageTypes.connectionsRequest,
    "@id": id,
    label,
    connection: { DID: did, DIDDoc: legacyDidDoc(did, verkey, endpoint) },
    "~thread": { thid: id, pthid: invitationId },
  };
}

/** A legacy document as a DID Core one: `publicKey` entries become verification methods. */
function fromLegacy(doc: Record<string, unknown>, did: string): DidDocument {
  const methods = Array.isArray(doc.publicKey) ? doc.publicKey : [];
  const vms = Array.isArray(doc.verificationMethod) ? doc.verificationMethod : [];
  return {
    ...doc,
    id: typeof doc.id === "string" ? doc.id : did,
    verificationMethod: [...vms, ...methods],
    authentication: [],
  } as DidDocument;
}

const PROBLEM = "response_not_accepted";

/** The handler of `connections/1.0/response` on a connection of ours in `request-sent`. */
export function connectionsResponseHandler(deps: Pick<DidcommDeps, "agents">) {
  return (ctx: InboundContext) => handleConnectionsResponse(deps, ctx);
}

async function handleConnectionsResponse(
  deps: Pick<DidcommDeps, "agents">,
  ctx: InboundContext,
): Promise<void> {
  const conn = ctx.connection!;
  if (conn.state === "completed" || conn.state === "abandoned") return; // late duplicate
  if (conn.state !== "request-sent" || threadIdOf(ctx.message) !== conn.threadId) {
    throw new DidCommProblem(PROBLEM, "No Connections 1.0 request of ours awaits this response.");
  }
  let next: ConnectionRecord;
  try {
    const connection = verifyConnectionSig(
      ctx.message["connection~sig"],
      conn.invitationKeys,
    );
    const did = connection.DID;
    const rawDoc = connection.DIDDoc;
    if (typeof did !== "string" || typeof rawDoc !== "object" || rawDoc === null) {
      throw new DidCommProblem(PROBLEM, "The response's connection has no DID and DIDDoc.");
    }
    const doc = fromLegacy(rawDoc as Record<string, unknown>, did);
    next = acceptResponse(
      conn,
      did,
      doc,
      ctx.senderKey,
      "The response was not sent with a key of its DIDDoc.",
      ctx.now,
    );
  } catch (err) {
    if (!(err instanceof DidCommProblem)) throw err;
    abandonConnection(ctx, err);
    return;
  }
  saveConnection(ctx.op, ctx.connectionEntry, next, ctx.now, ["response-received", "completed"]);
  await rotateIfEndpointMoved(deps.agents, ctx, next);
  queueMessageOn(ctx.op, next, {
    "@type": MessageTypes.trustPing,
    "@id": newMessageId(),
    response_requested: false,
  }, ctx.now);
}
