/**
 * What the credential exchange needs from the DIDComm layer: receiving plaintext messages of its
 * protocol on a connection, and queueing outbound messages on a connection inside the caller's
 * atomic operation (so a state change and the message it causes commit together).
 *
 * @module
 */

/** A plaintext DIDComm v1 message (JSON object with `@type` and `@id`). */
export type DidcommMessage = Record<string, unknown> & { "@type": string; "@id": string };

/** One received message, already unpacked and attributed to an org and a connection. */
export interface InboundMessage {
  orgId: string;
  /** The connection the envelope came over; null when it matches no connection of the org. */
  connectionId: string | null;
  message: Record<string, unknown>;
  /**
   * The handler adds its writes (with their checks) here; the DIDComm layer commits them together
   * with the message's "processed" marker, and re-runs the handler on fresh state when the commit
   * fails. Wake the dispatcher is the layer's job too.
   */
  op: Deno.AtomicOperation;
  /** Processing time (ms since epoch). */
  now: number;
}

/**
 * Handles one received message by adding writes to `inbound.op`; must not throw for bad input
 * (it queues a problem report in `op` instead).
 */
export type InboundHandler = (inbound: InboundMessage) => Promise<void>;

/** The DIDComm services the credential exchange uses. */
export interface CredentialDidcommPort {
  /** Routes received messages of `type` (full `@type` URI) to `handler`. */
  registerHandler(type: string, handler: InboundHandler): void;
  /**
   * Adds `message` for `connectionId` of `orgId` to `op` (the caller's atomic operation): it is
   * delivered at least once after `op` commits and never if it does not. Throws an `AppError`
   * when the connection cannot carry messages (unknown, not completed).
   */
  queueMessage(
    op: Deno.AtomicOperation,
    input: { orgId: string; connectionId: string; message: DidcommMessage },
  ): Promise<void> | void;
}
