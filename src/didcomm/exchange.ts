/**
 * The exchange kit: what a DIDComm protocol with one record per thread (Issue Credential 2.0,
 * Present Proof 2.0) does the same way, written once. A protocol names its record
 * (`Credential exchange`), its problem report and its store; the kit gives it:
 *
 * - `reply`: a problem report to the sender of a message, in the message's operation (logged; a
 *   report that cannot be queued is logged, never thrown);
 * - `exchangeOf`: the exchange of a message's thread, on the connection it came over;
 * - `transition`: one version-checked commit that moves an exchange from one state (409 names the
 *   state it found) and carries what the step adds (the message, the new record, its event);
 * - `queue`: a message on the exchange's connection, in the caller's operation;
 * - `abandonOnProblemReport`: a received problem report ends an open exchange;
 * - `autoStepHandler`: the outbox handler of the org's auto-accept policy, with one rule: a 4xx
 *   (the record is gone, moved on, or the step no longer applies) ends the step, a person decides;
 * - `errorMessage`: the one clip of what a record keeps of a failure.
 *
 * @module
 */
import { AppError, conflict, log, notFound, wrongState } from "../base/mod.ts";
import { atomicUpdate } from "../kv/mod.ts";
import type { OutboxHandler } from "../outbox/mod.ts";
import type { InboundContext } from "./handlers.ts";
import { type DidCommMessage, threadIdOf } from "./messages.ts";
import type { QueueMessageInput } from "./outbound.ts";
import { describeProblemReport } from "./problem_report.ts";

/** The DIDComm layer as a protocol sees it: a message queued inside the caller's commit. */
export interface ExchangeDidcomm {
  /** Adds `message` for the connection to `op`; 404 unknown connection, 409 not completed. */
  queueMessage(op: Deno.AtomicOperation, input: QueueMessageInput): Promise<void>;
}

/** What a protocol's handler reads of a received message (its writes go to `op`). */
export type ExchangeInbound =
  & Pick<InboundContext, "orgId" | "connectionId" | "message" | "op" | "now">
  & Partial<Pick<InboundContext, "connection">>;

/** A handler of one message type of a protocol. */
export type ExchangeHandler = (inbound: ExchangeInbound) => Promise<void>;

/** What every stored exchange has: its org and a record on one thread of one connection. */
export interface StoredExchangeBase {
  orgId: string;
  record: {
    id: string;
    connectionId: string;
    threadId: string;
    state: string;
    errorMessage?: string;
  };
}

/** A protocol, as the kit drives it. */
export interface ExchangeProtocol<S extends StoredExchangeBase> {
  /** What a record is called in sentences: `Credential exchange`, `Proof exchange`. */
  name: string;
  /** The protocol's problem report on a thread (RFC 0035). */
  problemReport(threadId: string, code: string, explanation: string): DidCommMessage;
  /** States in which an exchange has ended (a problem report changes nothing then). */
  finalStates: readonly S["record"]["state"][];
  /** `stored` moved to `state` at `now` (with an `errorMessage` when one is given). */
  withState(stored: S, state: S["record"]["state"], now: number, errorMessage?: string): S;
  /** The store. */
  read(kv: Deno.Kv, orgId: string, id: string): Promise<Deno.KvEntry<S> | null>;
  readByThread(kv: Deno.Kv, orgId: string, threadId: string): Promise<Deno.KvEntry<S> | null>;
  /** Adds a version-checked update of `entry` to `next`, with its event, to `op`. */
  addUpdate(op: Deno.AtomicOperation, entry: Deno.KvEntry<S>, next: S, now: number): void;
}

/** What the kit uses. */
export interface ExchangeKitDeps {
  kv: Deno.Kv;
  didcomm: ExchangeDidcomm;
  /** Woken after a commit that queued outbox messages. */
  dispatcher: { wake(): void };
  now: () => number;
}

/** The most a record keeps of a failure (`errorMessage`). */
export const MAX_ERROR_MESSAGE = 1000;

/** What a record keeps of a failure: `code: reason`, clipped to {@link MAX_ERROR_MESSAGE}. */
export function errorMessage(code: string, reason: string): string {
  return `${code}: ${reason}`.slice(0, MAX_ERROR_MESSAGE);
}

/** The exchange kit of one protocol. */
export class ExchangeKit<S extends StoredExchangeBase> {
  readonly #d: ExchangeKitDeps;
  readonly #p: ExchangeProtocol<S>;

  constructor(deps: ExchangeKitDeps, protocol: ExchangeProtocol<S>) {
    this.#d = deps;
    this.#p = protocol;
  }

  /** The exchange `id` of `orgId`, or null. */
  read(orgId: string, id: string): Promise<Deno.KvEntry<S> | null> {
    return this.#p.read(this.#d.kv, orgId, id);
  }

  /** The exchange on `threadId` of `orgId`, on any connection, or null. */
  readByThread(orgId: string, threadId: string): Promise<Deno.KvEntry<S> | null> {
    return this.#p.readByThread(this.#d.kv, orgId, threadId);
  }

  /** The exchange of a message's thread on the connection it came over, or null. */
  async exchangeOf(inbound: ExchangeInbound): Promise<Deno.KvEntry<S> | null> {
    const entry = await this.readByThread(inbound.orgId, threadIdOf(inbound.message));
    if (!entry || entry.value.record.connectionId !== inbound.connectionId) return null;
    return entry;
  }

  /**
   * True when `threadId` already has an exchange: the message that would open another one is
   * refused with a problem report (`code`; `what` names the message, e.g. "An offer") and records
   * nothing.
   */
  async isRepeat(
    inbound: ExchangeInbound,
    threadId: string,
    code: string,
    what: string,
  ): Promise<boolean> {
    if (!(await this.readByThread(inbound.orgId, threadId))) return false;
    const why = `${what} on thread "${threadId}" was already received; this one is ignored.`;
    await this.reply(inbound, threadId, code, why);
    return true;
  }

  /** Adds a problem report to the sender to `inbound.op`; logs it, and a report not queued. */
  async reply(inbound: ExchangeInbound, threadId: string, code: string, explanation: string) {
    const fields = { orgId: inbound.orgId, connectionId: inbound.connectionId, threadId };
    log("warn", `${this.#p.name.toLowerCase()} problem`, {
      ...fields,
      type: inbound.message["@type"],
      code,
      reason: explanation,
    });
    if (!inbound.connectionId) return;
    try {
      await this.queueOn(inbound.op, {
        orgId: inbound.orgId,
        connectionId: inbound.connectionId,
        message: this.#p.problemReport(threadId, code, explanation),
      });
    } catch (err: unknown) {
      log("warn", "problem report not queued", {
        ...fields,
        error: err instanceof Error ? err.message : String(err),
      });
    }
  }

  /** Queues `message` on a connection inside `op` (a reply to a received message). */
  async queueOn(
    op: Deno.AtomicOperation,
    input: { orgId: string; connectionId: string; message: DidCommMessage },
  ): Promise<void> {
    await this.#d.didcomm.queueMessage(op, input);
  }

  /**
   * Queues `message` on the exchange's connection inside `op`. When the connection no longer
   * exists the record still does, so that is a 409 naming both, not a 404.
   */
  async queue(op: Deno.AtomicOperation, stored: S, message: DidCommMessage): Promise<void> {
    const { orgId, record } = stored;
    try {
      await this.#d.didcomm.queueMessage(op, { orgId, connectionId: record.connectionId, message });
    } catch (err: unknown) {
      if (err instanceof AppError && err.status === 404) {
        throw conflict(
          `${this.#p.name} "${record.id}" uses connection "${record.connectionId}", which no ` +
            "longer exists; no message can be sent on it.",
        );
      }
      throw err;
    }
  }

  /** 409 unless `record` is in `state`; the sentence names the state it is in. */
  mustBeIn(record: S["record"], state: S["record"]["state"]): void {
    if (record.state !== state) throw wrongState(this.#p.name, record.id, record.state, state);
  }

  /**
   * Moves exchange `id` of `orgId` from `from` to what `step` returns, inside one version-checked
   * commit that also carries what `step` adds to the operation (a lost race runs it again on
   * fresh data). 404 without the exchange, 409 naming the state it is in.
   */
  async transition(
    orgId: string,
    id: string,
    from: S["record"]["state"],
    step: (stored: S, op: Deno.AtomicOperation, now: number) => Promise<S>,
  ): Promise<S["record"]> {
    const next = await atomicUpdate(this.#d.kv, async (op) => {
      const entry = await this.read(orgId, id);
      if (!entry) throw notFound(`No ${this.#p.name.toLowerCase()} record "${id}" exists.`);
      this.mustBeIn(entry.value.record, from);
      const now = this.#d.now();
      const next = await step(entry.value, op, now);
      this.#p.addUpdate(op, entry, next, now);
      return next;
    }, {
      conflict: () => new AppError("conflict", 409, "The record is changing too fast; try again."),
    });
    this.#d.dispatcher.wake();
    return next.record;
  }

  /**
   * A received problem report: the open exchange of its thread is `abandoned` with the report's
   * code and description. Never answered with a report (no loops); an exchange that has ended, or
   * none, is only logged.
   */
  async abandonOnProblemReport(inbound: ExchangeInbound): Promise<void> {
    const entry = await this.exchangeOf(inbound);
    if (!entry || this.#p.finalStates.includes(entry.value.record.state)) {
      log("info", `problem report for no open ${this.#p.name.toLowerCase()}`, {
        orgId: inbound.orgId,
        threadId: threadIdOf(inbound.message),
        state: entry?.value.record.state ?? null,
      });
      return;
    }
    const reason = describeProblemReport(inbound.message).slice(0, MAX_ERROR_MESSAGE);
    const abandoned = "abandoned" as S["record"]["state"];
    const next = this.#p.withState(entry.value, abandoned, inbound.now, reason);
    this.#p.addUpdate(inbound.op, entry, next, inbound.now);
  }
}

/** Retry delays of an automatic step that failed for a transient reason. */
export const AUTO_STEP_SCHEDULE: readonly number[] = [1_000, 5_000, 30_000, 5 * 60_000];

/**
 * The outbox handler of a protocol's automatic steps (the org's auto-accept policy), queued in
 * the commit that made the step possible, so that it survives a crash. `run` takes the step
 * through the same method as the route. A 4xx (the record is gone, has moved on, or the step no
 * longer applies) ends the step: a person decides. Anything else is tried again.
 */
export function autoStepHandler<P extends { orgId: string }>(
  what: string,
  run: (payload: P) => Promise<unknown>,
): OutboxHandler<P> {
  return {
    schedule: AUTO_STEP_SCHEDULE,
    async handle(msg) {
      try {
        await run(msg.payload);
        return { ok: true };
      } catch (err: unknown) {
        if (err instanceof AppError && err.status >= 400 && err.status < 500) {
          log("info", `${what} skipped`, { ...msg.payload, why: err.message });
          return { ok: true, status: err.status };
        }
        return { ok: false, error: err instanceof Error ? err.message : String(err) };
      }
    },
  };
}
