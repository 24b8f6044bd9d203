/**
 * DIDComm v1: the holder-side agent of every configured org (`DidcommService`): envelopes
 * (RFC 0019), connections (DID Exchange, Connections 1.0, DID Rotate), trust ping, and the
 * message handler registry other protocols register with.
 *
 * - `didcomm.handlers.register(type, handler, options?)`: handle received messages of a type. The
 *   handler gets an {@link InboundContext} (`orgId`, `connectionId`, `connection`, `message`,
 *   `senderKey`, `op`, `now`); writes added to `ctx.op` commit atomically with the message's
 *   processed marker (exactly-once effect). Throw {@link DidCommProblem} to refuse the message with
 *   a problem report on its thread. By default handlers run only for messages on a `completed`
 *   connection sent by its other side.
 * - `didcomm.queueMessage(op, {orgId, connectionId, message})`: add an outbound message to the
 *   caller's atomic operation (404 unknown connection, 409 not completed); wake the dispatcher
 *   after the commit.
 *
 * @module
 */
export { DidcommService, queueOnRecordConnection } from "./service.ts";
export { didcommRoutes, type DidcommRoutesDeps } from "./routes.ts";
export type { DidcommDeps } from "./deps.ts";
export {
  type InboundContext,
  type MessageHandler,
  type MessageHandlerOptions,
  MessageHandlers,
} from "./handlers.ts";
export { type DidCommMessage, newMessageId, threadIdOf } from "./messages.ts";
export {
  describeProblemReport,
  DidCommProblem,
  problemReportFor,
  threadProblemReport,
} from "./problem_report.ts";
export { DIDCOMM_KIND, type QueueMessageInput } from "./outbound.ts";
export { queueDidRotation } from "./connections/rotate_ours.ts";
export type { ConnectionView } from "./connections/record.ts";
