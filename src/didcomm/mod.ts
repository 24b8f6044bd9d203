/**
 * DIDComm v1: the holder-side agent of every configured org (`DidcommService`): envelopes
 * (RFC 0019), connections (DID Exchange, Connections 1.0, DID Rotate), trust ping, the message
 * handler registry, and the exchange kit the protocols on top (Issue Credential, Present Proof)
 * are built with.
 *
 * - `didcomm.handlers.registerAll(table)`: handle received messages by type (the composition
 *   registers every table, the layer's own and each protocol's, in one list). A handler gets an
 *   {@link InboundContext} (`orgId`, `connectionId`, `connection`, `message`, `senderKey`, `op`,
 *   `now`); writes added to `ctx.op` commit atomically with the message's processed marker
 *   (exactly-once effect). Throw {@link DidCommProblem} to refuse the message with a problem
 *   report on its thread. By default handlers run only for messages on a `completed` connection
 *   sent by its other side.
 * - `didcomm.queueMessage(op, {orgId, connectionId, message})`: add an outbound message to the
 *   caller's atomic operation (404 unknown connection, 409 not completed); wake the dispatcher
 *   after the commit.
 * - {@link ExchangeKit}: replies, the exchange of a thread, state transitions, queueing, problem
 *   reports and automatic steps, written once for both protocols.
 *
 * @module
 */
export { DidcommService } from "./service.ts";
export {
  AUTO_STEP_SCHEDULE,
  autoStepHandler,
  errorMessage,
  type ExchangeDidcomm,
  type ExchangeHandler,
  type ExchangeInbound,
  ExchangeKit,
  type ExchangeKitDeps,
  type ExchangeProtocol,
  MAX_ERROR_MESSAGE,
  type StoredExchangeBase,
} from "./exchange.ts";
export {
  decodeAttachment,
  findFormatAttachment,
  formatAttachment,
  jsonToBase64,
} from "./attachments.ts";
export { didcommRoutes, type DidcommRoutesDeps } from "./routes.ts";
export type { DidcommDeps } from "./deps.ts";
export {
  type InboundContext,
  type MessageHandler,
  type MessageHandlerOptions,
  MessageHandlers,
  type MessageHandlerTable,
} from "./handlers.ts";
export { handshakeHandlers } from "./connections/invitation.ts";
export { observingHandlers } from "./connections/rotate_theirs.ts";
export { trustPingHandlers } from "./trust_ping.ts";
export { type DidCommMessage, newMessageId, threadIdOf } from "./messages.ts";
export {
  describeProblemReport,
  DidCommProblem,
  problemReportFor,
  threadProblemReport,
} from "./problem_report.ts";
export { DIDCOMM_KIND, type QueueMessageInput } from "./outbound.ts";
export { queueDidRotation, rotatingHandlers } from "./connections/rotate_ours.ts";
export type { ConnectionView } from "./connections/record.ts";
