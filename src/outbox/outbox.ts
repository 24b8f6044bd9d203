import { atomicUpdate, keys, timeId } from "../kv/mod.ts";
import { currentTraceparent } from "../telemetry/mod.ts";

/** A durable message: a webhook delivery, a DIDComm message, or any other outbound effect. */
export interface OutboxMessage<P = unknown> {
  id: string;
  kind: string;
  /** Org that owns the message (listing, fairness); null for service-level messages. */
  orgId: string | null;
  payload: P;
  status: "pending" | "succeeded" | "dead";
  /** Attempts made so far. */
  attempts: number;
  /** `attempts` when the current retry schedule started (a manual retry starts a new one). */
  scheduleStart: number;
  createdAt: string;
  /** When the message is next due (ms since epoch); while leased, when the lease ends. */
  dueAt: number;
  leaseOwner: string | null;
  leaseUntil: number | null;
  lastStatus?: number;
  lastError?: string;
  lastAttemptAt?: string;
  completedAt?: string;
  /** W3C `traceparent` of the request that queued the message (telemetry links its attempts). */
  trace?: string;
}

/** One recorded attempt to handle a message. */
export interface OutboxAttempt {
  n: number;
  at: string;
  durationMs: number;
  ok: boolean;
  status?: number;
  error?: string;
}

/** What to add to the outbox. */
export interface OutboxInput<P> {
  kind: string;
  orgId: string | null;
  payload: P;
  /** Explicit id (e.g. an event id); defaults to a time-ordered id. */
  id?: string;
  /** Delay before the first attempt. */
  delayMs?: number;
}

/**
 * Adds a message to `op`, the same atomic operation as the change that causes it. Nothing is
 * sent unless that operation commits. Call `Dispatcher.wake()` after the commit.
 */
export function enqueue<P>(
  op: Deno.AtomicOperation,
  input: OutboxInput<P>,
  now = Date.now(),
): OutboxMessage<P> {
  const id = input.id ?? timeId(now);
  const msg: OutboxMessage<P> = {
    id,
    kind: input.kind,
    orgId: input.orgId,
    payload: input.payload,
    status: "pending",
    attempts: 0,
    scheduleStart: 0,
    createdAt: new Date(now).toISOString(),
    dueAt: now + (input.delayMs ?? 0),
    leaseOwner: null,
    leaseUntil: null,
  };
  const trace = currentTraceparent();
  if (trace) msg.trace = trace;
  op.check({ key: keys.outboxMessage(id), versionstamp: null })
    .set(keys.outboxMessage(id), msg)
    .set(keys.outboxDue(msg.dueAt, id), id);
  if (input.orgId !== null) op.set(keys.outboxByOrg(input.orgId, input.kind, id), id);
  return msg;
}

/** Reads a message with its attempts (oldest first). */
export async function readMessage<P>(
  kv: Deno.Kv,
  id: string,
): Promise<{ message: OutboxMessage<P>; attempts: OutboxAttempt[] } | null> {
  const m = await kv.get<OutboxMessage<P>>(keys.outboxMessage(id));
  if (!m.value) return null;
  const attempts: OutboxAttempt[] = [];
  for await (const a of kv.list<OutboxAttempt>({ prefix: keys.outboxAttemptPrefix(id) })) {
    attempts.push(a.value);
  }
  return { message: m.value, attempts };
}

/**
 * Puts a dead message back in the queue with a fresh retry schedule. `ok` with the message when it
 * was dead; otherwise not `ok`, with the message as it is now (null when it does not exist). A
 * lost race is read again (`atomicUpdate`), so the answer is what the message is now.
 */
export async function requeueDead<P>(
  kv: Deno.Kv,
  id: string,
  now = Date.now(),
): Promise<{ ok: boolean; message: OutboxMessage<P> | null }> {
  return await atomicUpdate(kv, async (op) => {
    const cur = await kv.get<OutboxMessage<P>>(keys.outboxMessage(id));
    if (!cur.value) return { ok: false, message: null };
    if (cur.value.status !== "dead") return { ok: false, message: cur.value };
    const next: OutboxMessage<P> = {
      ...cur.value,
      status: "pending",
      scheduleStart: cur.value.attempts,
      dueAt: now,
      leaseOwner: null,
      leaseUntil: null,
      completedAt: undefined,
    };
    op.check(cur).set(keys.outboxMessage(id), next).set(keys.outboxDue(now, id), id);
    // Pending again: no longer subject to the finished-message retention.
    if (next.orgId !== null) op.set(keys.outboxByOrg(next.orgId, next.kind, id), id);
    return { ok: true, message: next };
  });
}
