/**
 * The inbound message handler registry, one instance made by the composition: protocols (the
 * DIDComm layer's own and the credential exchange) register a handler per message type; the
 * inbound processor calls it with the message, its org, connection and authenticated sender, and
 * an atomic operation that commits together with the "processed" marker of the message.
 *
 * Types are matched by protocol, major version and message name (RFC 0003: another minor version
 * of the same protocol is handled by the same handler), after rewriting the legacy
 * `did:sov:BzCbsNYhMrjHiqZDTUASHg;spec/` prefix.
 *
 * @module
 */
import type { ConnectionRecord } from "./connections/record.ts";
import { type DidCommMessage, parseMessageType } from "./messages.ts";

/** What a handler gets. */
export interface InboundContext {
  orgId: string;
  /** The connection the message came over (by the key it was encrypted to), or null. */
  connectionId: string | null;
  connection: ConnectionRecord | null;
  /** The connection's KV entry (for `op.check` when the handler changes the record). */
  connectionEntry: Deno.KvEntryMaybe<ConnectionRecord> | null;
  message: DidCommMessage;
  /** base58 verkey of the authenticated sender (Authcrypt), or null (Anoncrypt). */
  senderKey: string | null;
  /** base58 verkey of ours the message was encrypted to. */
  recipientKey: string;
  /**
   * Add writes here (with their `check`s): they commit atomically with the message's processed
   * marker, so a message is acted on exactly once. Use `queueMessageOn(op, …)` (or the service's
   * `queueMessage(op, …)`) for replies. A failed commit re-runs the handler on fresh state.
   */
  op: Deno.AtomicOperation;
  /** The processing time (ms since epoch). */
  now: number;
}

/** A message handler. Throw `DidCommProblem` to refuse the message with a problem report. */
export type MessageHandler = (ctx: InboundContext) => Promise<void> | void;

/** How the processor treats a message type before calling its handler. */
export interface MessageHandlerOptions {
  /**
   * Default true: a message that came over no known connection is dropped (logged) without
   * calling the handler.
   */
  requiresConnection?: boolean;
  /**
   * Default false: the handler runs only for a `completed` connection whose other side sent the
   * message (Authcrypt from one of its keys); anything else is dropped (logged). Handshake
   * messages set this to true and authenticate the sender themselves.
   */
  acceptBeforeCompleted?: boolean;
}

/** Handlers by message type, as a protocol offers them; the composition registers them all. */
export type MessageHandlerTable = Record<
  string,
  MessageHandler | { handler: MessageHandler; options: MessageHandlerOptions }
>;

/** A registered handler with its options filled in. */
export interface RegisteredHandler {
  handler: MessageHandler;
  options: Required<MessageHandlerOptions>;
}

function registryKey(type: string): string | undefined {
  const t = parseMessageType(type);
  return t ? `${t.docUri}${t.protocol}/${t.major}/${t.name}` : undefined;
}

/** Message handlers by type (protocol, major version and name). */
export class MessageHandlers {
  readonly #byType = new Map<string, RegisteredHandler>();

  /**
   * Registers the handler of a message type (full URI, e.g.
   * `https://didcomm.org/issue-credential/2.0/offer-credential`); a later registration replaces an
   * earlier one. Throws for a type that is not an RFC 0003 message type URI.
   */
  register(type: string, handler: MessageHandler, options: MessageHandlerOptions = {}): void {
    const key = registryKey(type);
    if (!key) throw new Error(`"${type}" is not a DIDComm message type URI.`);
    this.#byType.set(key, {
      handler,
      options: {
        requiresConnection: options.requiresConnection ?? true,
        acceptBeforeCompleted: options.acceptBeforeCompleted ?? false,
      },
    });
  }

  /** Registers every handler of `table` (see {@link register}). */
  registerAll(table: MessageHandlerTable): void {
    for (const [type, h] of Object.entries(table)) {
      if (typeof h === "function") this.register(type, h);
      else this.register(type, h.handler, h.options);
    }
  }

  /** The registered handler of a message type, if any. */
  find(type: string): RegisteredHandler | undefined {
    const key = registryKey(type);
    return key ? this.#byType.get(key) : undefined;
  }
}
