/**
 * What other features (the credential exchange) use of the DIDComm layer, in one place.
 *
 * - {@link registerHandler}`(type, handler, options?)`: handle received messages of a type. The
 *   handler gets an {@link InboundContext} (`orgId`, `connectionId`, `connection`, `message`,
 *   `senderKey`, `op`, `now`, `deps`); writes added to `ctx.op` commit atomically with the
 *   message's processed marker (exactly-once effect). Throw {@link DidCommProblem} to refuse the
 *   message with a problem report on its thread. By default handlers run only for messages on a
 *   `completed` connection sent by its other side.
 * - {@link queueMessage}`(deps, op, {orgId, connectionId, message})`: add an outbound message to
 *   the caller's atomic operation (404 unknown connection, 409 not completed); call
 *   `deps.dispatcher.wake()` after the commit. {@link queueMessageOn} does the same with a record
 *   in hand (synchronous; use it inside handlers with `ctx.connection`).
 * - {@link getConnection}`(kv, orgId, id)`, {@link connectionView}: connection lookups.
 * - {@link problemReportFor}`(message, code, description)`: a problem report answering a message.
 * - {@link didcommPort}`(deps)`: the same as an object `{registerHandler, queueMessage}`.
 *
 * @module
 */
import type { AppDeps } from "../deps.ts";
import { type MessageHandler, type MessageHandlerOptions, registerHandler } from "./dispatch.ts";
import { queueMessage, type QueueMessageInput } from "./outbound.ts";

export {
  type InboundContext,
  type MessageHandler,
  type MessageHandlerOptions,
  registerHandler,
} from "./dispatch.ts";
export {
  DIDCOMM_KIND,
  type OutboundPayload,
  queueMessage,
  type QueueMessageInput,
  queueMessageOn,
} from "./outbound.ts";
export {
  type ConnectionRecord,
  type ConnectionView,
  connectionView,
  findConnectionByThread,
  getConnection,
} from "./connections/record.ts";
export { queueDidRotation } from "./connections/did_rotate.ts";
export { describeProblemReport, DidCommProblem, problemReportFor } from "./problem_report.ts";
export { type DidCommMessage, newMessageId, threadIdOf } from "./messages.ts";

/** The DIDComm services as one object bound to `deps`. */
export interface DidcommPort {
  registerHandler(type: string, handler: MessageHandler, options?: MessageHandlerOptions): void;
  queueMessage(op: Deno.AtomicOperation, input: QueueMessageInput): Promise<void>;
}

/** {@link DidcommPort} for `deps`. */
export function didcommPort(deps: AppDeps): DidcommPort {
  return {
    registerHandler,
    async queueMessage(op, input) {
      await queueMessage(deps, op, input);
    },
  };
}
