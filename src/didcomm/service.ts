/**
 * The DIDComm service: inbound envelopes, the org's connections (receive an invitation, list,
 * read, hang up), outbound messages for other features (`queueMessage`), and the message handler
 * registry (`handlers`) every protocol registers with. Built once by the composition.
 *
 * @module
 */
import { AppError, conflict, notFound } from "../base/mod.ts";
import { keys, listPage, type Page } from "../kv/mod.ts";
import type { OutboxHandler } from "../outbox/mod.ts";
import {
  type ConnectionRecord,
  type ConnectionState,
  type ConnectionView,
  connectionView,
  getConnection,
  getConnectionEntry,
} from "./connections/record.ts";
import { receiveInvitation } from "./connections/invitation.ts";
import { didRotationHandler, hangUp, ROTATE_KIND } from "./connections/rotate_ours.ts";
import type { DidcommDeps } from "./deps.ts";
import { MessageHandlers } from "./handlers.ts";
import { INBOUND_KIND, inboundProcessingHandler, receiveEnvelope } from "./inbound.ts";
import { invitationFromLink } from "./oob.ts";
import {
  DIDCOMM_KIND,
  didcommDeliveryHandler,
  type QueueMessageInput,
  queueMessageOn,
} from "./outbound.ts";

/** The holder-side DIDComm agent of every configured org. */
export class DidcommService {
  /**
   * The message handlers by type, the layer's own and every protocol's: the composition
   * registers them all here (`compose.ts`, one list).
   */
  readonly handlers: MessageHandlers = new MessageHandlers();
  readonly #d: DidcommDeps;

  constructor(deps: DidcommDeps) {
    this.#d = deps;
  }

  /** The outbox handlers of the layer by kind: delivery, inbound processing, DID rotation. */
  outboxHandlers(): Record<string, OutboxHandler<never>> {
    const d = this.#d;
    return {
      [DIDCOMM_KIND]: didcommDeliveryHandler(d) as OutboxHandler<never>,
      [INBOUND_KIND]: inboundProcessingHandler({ ...d, handlers: this.handlers }) as OutboxHandler<
        never
      >,
      [ROTATE_KIND]: didRotationHandler(d) as OutboxHandler<never>,
    };
  }

  /** Decrypts and stores one inbound envelope (`EnvelopeError` for anything not accepted). */
  async receiveEnvelope(body: Uint8Array): Promise<void> {
    await receiveEnvelope({ ...this.#d, handlers: this.handlers }, body);
  }

  /**
   * Accepts an invitation (given, or read from a URL: `?oob=`/`?c_i=`, or a short link fetched
   * once): a connection in `request-sent` with its request queued in the same commit.
   */
  async receiveInvitation(
    orgId: string,
    input: { invitation?: Record<string, unknown>; invitationUrl?: string },
  ): Promise<ConnectionView> {
    const invitation = input.invitation ??
      await invitationFromLink(this.#d.safeFetch, input.invitationUrl!);
    return await receiveInvitation(this.#d, orgId, invitation);
  }

  /** One page of the org's connections, newest first. */
  async listConnections(
    orgId: string,
    q: { limit: number; cursor?: string; state?: ConnectionState },
  ): Promise<Page<ConnectionView>> {
    const page = await listPage<ConnectionRecord>(this.#d.kv, keys.connectionPrefix(orgId), {
      limit: q.limit,
      cursor: q.cursor,
      filter: q.state ? (r) => r.state === q.state : undefined,
    });
    return { data: page.data.map(connectionView), nextCursor: page.nextCursor };
  }

  /** One connection of the org; 404 when it has none with that id. */
  async getConnection(orgId: string, id: string): Promise<ConnectionView> {
    const r = await getConnection(this.#d.kv, orgId, id);
    if (!r) throw notFound(`Connection "${id}" does not exist.`);
    return connectionView(r);
  }

  /** True while the org has any connection record. */
  async hasConnections(orgId: string): Promise<boolean> {
    for await (const _ of this.#d.kv.list({ prefix: keys.connectionPrefix(orgId) }, { limit: 1 })) {
      return true;
    }
    return false;
  }

  /** Ends a completed connection from our side (DID Rotate `hangup`). */
  async hangUp(orgId: string, id: string): Promise<ConnectionView> {
    return connectionView(await hangUp(this.#d, orgId, id));
  }

  /**
   * Adds `message` for the connection to `op` (the caller's atomic operation): delivered at least
   * once after `op` commits, never if it does not. 404 unknown connection, 409 not completed.
   * The connection is checked in `op` as it was read: should it change before the commit (a hang
   * up, a rotation of its keys), the commit fails and the caller's retry reads it again. Wake the
   * dispatcher after the commit.
   */
  async queueMessage(op: Deno.AtomicOperation, input: QueueMessageInput): Promise<void> {
    const entry = await getConnectionEntry(this.#d.kv, input.orgId, input.connectionId);
    const connection = entry.value;
    if (!connection) throw notFound(`Connection "${input.connectionId}" does not exist.`);
    op.check(entry);
    if (input.requireCompleted !== false && connection.state !== "completed") {
      throw conflict(
        `Connection "${connection.id}" is ${connection.state}; messages need a completed connection.`,
      );
    }
    try {
      queueMessageOn(op, connection, input.message, this.#d.now());
    } catch (err) {
      throw new AppError("bad_request", 400, (err as Error).message);
    }
  }
}
