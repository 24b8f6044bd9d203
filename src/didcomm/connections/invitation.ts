/**
 * Connections, requester side: receiving an invitation creates a per-connection wallet key and
 * DID, the connection record (`request-sent`) and the handshake request, all in one commit; the
 * response and problem report handlers move the record on.
 *
 * @module
 */
import { conflict, log } from "../../base/mod.ts";
import { keys, uuidv7 } from "../../kv/mod.ts";
import type { DidcommDeps } from "../deps.ts";
import type { InboundContext, MessageHandlerTable } from "../handlers.ts";
import { type DidCommMessage, MessageTypes, Protocols } from "../messages.ts";
import { type ParsedInvitation, parseInvitation } from "../oob.ts";
import { queueMessageOn } from "../outbound.ts";
import { describeProblemReport } from "../problem_report.ts";
import {
  type ConnectionRecord,
  type ConnectionView,
  connectionView,
  saveConnection,
} from "./record.ts";
import { createConnectionDid } from "./connection_did.ts";
import { didExchangeRequest, didExchangeResponseHandler } from "./did_exchange.ts";
import { connectionsRequest, connectionsResponseHandler, legacyDid } from "./connections_v1.ts";

/**
 * Accepts an invitation for `orgId`: 201-worthy connection view in `request-sent`, with the
 * request queued in the same commit. 400 for an unusable invitation, 409 when the org has no
 * agent or already received this invitation.
 */
export async function receiveInvitation(
  deps: DidcommDeps,
  orgId: string,
  invitation: Record<string, unknown>,
): Promise<ConnectionView> {
  const wallet = await deps.wallet.identity(orgId);
  if (!wallet) {
    throw conflict(
      `Organization "${orgId}" has no agent configured; configure it with POST /orgs/${orgId}/agents/configure first.`,
    );
  }
  const inv: ParsedInvitation = await parseInvitation(deps.resolver, invitation);
  const byInvitation = keys.connectionByInvitation(orgId, inv.id);
  const existing = await deps.kv.get<string>(byInvitation);
  const already = () =>
    conflict(
      `Invitation "${inv.id}" was already received by organization "${orgId}" (connection "${existing.value}"); invitations are used once.`,
    );
  if (existing.value) throw already();

  const now = deps.now();
  const { record: key, publicKey } = await deps.wallet.newKey(orgId, wallet.agentId, {
    purpose: "connection",
    now,
  });
  let did: string;
  let request: DidCommMessage;
  if (inv.protocol === Protocols.didExchange) {
    did = createConnectionDid(publicKey, wallet.agentEndpoint);
    request = didExchangeRequest(did, wallet.label, inv.id);
  } else {
    did = legacyDid(publicKey);
    request = connectionsRequest(did, key.verkey, wallet.agentEndpoint, wallet.label, inv.id);
  }
  const at = new Date(now).toISOString();
  const record: ConnectionRecord = {
    id: uuidv7(now),
    createdAt: at,
    updatedAt: at,
    state: "request-sent",
    role: "requester",
    did,
    theirDid: null,
    theirLabel: inv.label,
    outOfBandId: uuidv7(now),
    threadId: request["@id"],
    protocol: inv.protocol,
    orgId,
    invitationId: inv.id,
    invitationKeys: inv.target.recipientKeys,
    ourKeyId: key.keyId,
    ourVerkey: key.verkey,
    their: inv.target,
    theirKeys: [],
    endpoint: wallet.agentEndpoint,
  };
  const op = deps.kv.atomic();
  deps.wallet.write(op, key);
  op.check({ key: byInvitation, versionstamp: null }).set(byInvitation, record.id);
  saveConnection(op, null, record, now, ["invitation-received", "request-sent"]);
  queueMessageOn(op, record, request, now);
  if (!(await op.commit()).ok) {
    existing.value = (await deps.kv.get<string>(byInvitation)).value;
    throw already();
  }
  deps.dispatcher.wake();
  log("info", "connection request queued", {
    orgId,
    connectionId: record.id,
    protocol: inv.protocol,
  });
  return connectionView(record);
}

/** A problem report about our handshake: the connection is abandoned with its description. */
function handleHandshakeProblem(ctx: InboundContext): void {
  const conn = ctx.connection;
  if (!conn || conn.state === "completed" || conn.state === "abandoned") {
    log("info", "problem report received", {
      orgId: ctx.orgId,
      connectionId: ctx.connectionId,
      problem: describeProblemReport(ctx.message),
    });
    return;
  }
  const next: ConnectionRecord = {
    ...conn,
    state: "abandoned",
    errorMessage: describeProblemReport(ctx.message),
    updatedAt: new Date(ctx.now).toISOString(),
  };
  saveConnection(ctx.op, ctx.connectionEntry, next, ctx.now);
}

/** The handshake message handlers (they authenticate the sender themselves). */
export function handshakeHandlers(deps: DidcommDeps): MessageHandlerTable {
  const options = { acceptBeforeCompleted: true };
  return {
    [MessageTypes.didExchangeResponse]: { handler: didExchangeResponseHandler(deps), options },
    [MessageTypes.connectionsResponse]: { handler: connectionsResponseHandler(deps), options },
    [MessageTypes.didExchangeProblemReport]: { handler: handleHandshakeProblem, options },
    [MessageTypes.connectionsProblemReport]: { handler: handleHandshakeProblem, options },
    [MessageTypes.problemReport]: { handler: handleHandshakeProblem, options },
  };
}
