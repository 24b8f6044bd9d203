/**
 * One delivery attempt of a claimed outbox message: the handler runs (in an `outbox.attempt`
 * span), then the attempt is recorded in one commit checked against the claim's versionstamp:
 * succeeded, due again by the handler's schedule (a Retry-After honoured within it), or dead
 * (with the handler's `onDead` writes). An attempt cut short by shutdown gives its lease back
 * instead, nothing counted. The dispatcher (`dispatcher.ts`) claims messages and calls this.
 *
 * @module
 */
import { keys } from "../kv/mod.ts";
import { log } from "../base/mod.ts";
import { inSpan, recordDelivery } from "../telemetry/mod.ts";
import {
  DEAD_RETENTION_MS,
  type HandlerResult,
  type OutboxHandler,
  SUCCEEDED_RETENTION_MS,
} from "./handler.ts";
import type { OutboxAttempt, OutboxMessage } from "./outbox.ts";

/** What an attempt needs of its dispatcher. */
export interface AttemptDeps {
  kv: Deno.Kv;
  now: () => number;
}

/**
 * Runs the attempt of `msg`, claimed at `versionstamp`, with `handler` (none: a failed attempt
 * naming the kind). `signal` aborts it at shutdown: when it is aborted before the handler ends,
 * the lease is released and nothing is counted.
 */
export async function runAttempt(
  deps: AttemptDeps,
  handler: OutboxHandler<never> | undefined,
  msg: OutboxMessage,
  versionstamp: string,
  signal: AbortSignal,
): Promise<void> {
  const startedAt = deps.now();
  const t0 = performance.now();
  const { result, released } = await callHandler(handler, msg, signal);
  if (released) {
    recordDelivery(msg.kind, "released", performance.now() - t0);
    return await releaseLease(deps, msg, versionstamp);
  }
  const durationMs = Math.round(performance.now() - t0);
  await recordAttempt(deps, handler, msg, versionstamp, result, startedAt, durationMs);
}

/** The handler's result, in a span; `released` when shutdown cut it short. */
function callHandler(
  handler: OutboxHandler<never> | undefined,
  msg: OutboxMessage,
  signal: AbortSignal,
): Promise<{ result: HandlerResult; released: boolean }> {
  const attributes = {
    "outbox.kind": msg.kind,
    "outbox.id": msg.id,
    "outbox.attempt": msg.attempts + 1,
    ...(msg.orgId ? { "org.id": msg.orgId } : {}),
  };
  return inSpan("outbox.attempt", { attributes, causedBy: msg.trace }, async (span) => {
    let result: HandlerResult;
    if (!handler) {
      result = { ok: false, error: `No handler for message kind "${msg.kind}".` };
    } else {
      try {
        result = await handler.handle(msg as never, { signal });
      } catch (err) {
        result = { ok: false, error: err instanceof Error ? err.message : String(err) };
      }
    }
    // Read once, as the handler ends: an abort after that changes nothing.
    const released = signal.aborted;
    span.setAttribute("outbox.outcome", released ? "released" : result.ok ? "ok" : "failed");
    if (result.status !== undefined) span.setAttribute("http.response.status_code", result.status);
    return { result, released };
  });
}

/** Gives up the lease of an attempt cut short by shutdown: due again now, nothing counted. */
async function releaseLease(
  deps: AttemptDeps,
  msg: OutboxMessage,
  versionstamp: string,
): Promise<void> {
  const now = deps.now();
  const released: OutboxMessage = { ...msg, dueAt: now, leaseOwner: null, leaseUntil: null };
  try {
    const res = await deps.kv.atomic()
      .check({ key: keys.outboxMessage(msg.id), versionstamp })
      .delete(keys.outboxDue(msg.dueAt, msg.id))
      .set(keys.outboxDue(now, msg.id), msg.id)
      .set(keys.outboxMessage(msg.id), released)
      .commit();
    log("info", "outbox lease released at shutdown", {
      id: msg.id,
      kind: msg.kind,
      orgId: msg.orgId,
      released: res.ok,
    });
  } catch (err) {
    // The lease ends by itself (OUTBOX_LEASE_SECONDS): the message is still taken again.
    log("warn", "outbox lease could not be released", { id: msg.id, error: err });
  }
}

/** Records a finished attempt and what comes next (done, due again, dead) in one commit. */
async function recordAttempt(
  deps: AttemptDeps,
  handler: OutboxHandler<never> | undefined,
  msg: OutboxMessage,
  versionstamp: string,
  result: HandlerResult,
  startedAt: number,
  durationMs: number,
): Promise<void> {
  const now = deps.now();
  const n = msg.attempts + 1;
  const attempt: OutboxAttempt = {
    n,
    at: new Date(startedAt).toISOString(),
    durationMs,
    ok: result.ok,
    ...(result.status !== undefined ? { status: result.status } : {}),
    ...(!result.ok ? { error: result.error } : {}),
  };
  const next: OutboxMessage = {
    ...msg,
    attempts: n,
    leaseOwner: null,
    leaseUntil: null,
    lastAttemptAt: attempt.at,
    lastStatus: result.status,
    lastError: result.ok ? undefined : result.error,
  };
  const schedule = handler?.schedule ?? [];
  const retryIndex = n - msg.scheduleStart - 1;
  const op = deps.kv.atomic()
    .check({ key: keys.outboxMessage(msg.id), versionstamp })
    .delete(keys.outboxDue(msg.dueAt, msg.id))
    .set(keys.outboxAttempt(msg.id, n), attempt, { expireIn: DEAD_RETENTION_MS });
  if (result.ok) {
    next.status = "succeeded";
    next.completedAt = new Date(now).toISOString();
  } else if (result.final || retryIndex >= schedule.length) {
    next.status = "dead";
    next.completedAt = new Date(now).toISOString();
    try {
      await handler?.onDead?.(next as never, op, now);
    } catch (err) {
      log("error", "outbox dead-letter hook failed", { id: msg.id, kind: msg.kind, error: err });
    }
  } else {
    let delay = schedule[retryIndex]!;
    if (result.retryAfterMs !== undefined) {
      // Honour Retry-After within the schedule's bounds.
      const max = schedule[schedule.length - 1]!;
      delay = Math.min(Math.max(delay, result.retryAfterMs), Math.max(max, delay));
    }
    next.dueAt = now + delay;
    op.set(keys.outboxDue(next.dueAt, msg.id), msg.id);
  }
  // Finished messages are garbage-collected after their retention (expireIn is GC only: every
  // reader already treats a missing message as gone).
  const retention = next.status === "succeeded"
    ? SUCCEEDED_RETENTION_MS
    : next.status === "dead"
    ? DEAD_RETENTION_MS
    : undefined;
  op.set(keys.outboxMessage(msg.id), next, retention ? { expireIn: retention } : undefined);
  if (retention && msg.orgId !== null) {
    op.set(keys.outboxByOrg(msg.orgId, msg.kind, msg.id), msg.id, { expireIn: retention });
  }
  let res: Deno.KvCommitResult | Deno.KvCommitError;
  try {
    res = await op.commit();
  } catch (err) {
    // The lease will expire and the message will be attempted again: at least once.
    log("error", "outbox attempt could not be recorded", {
      id: msg.id,
      kind: msg.kind,
      error: err,
    });
    return;
  }
  if (!res.ok) {
    // Another dispatcher took the message after this lease ran out: its record stands.
    log("warn", "outbox lease lost before the attempt was recorded", {
      id: msg.id,
      kind: msg.kind,
    });
    return;
  }
  recordDelivery(
    msg.kind,
    result.ok ? "succeeded" : next.status === "dead" ? "dead" : "failed",
    durationMs,
  );
  const level = result.ok ? "debug" : next.status === "dead" ? "warn" : "info";
  log(level, result.ok ? "outbox message handled" : "outbox attempt failed", {
    id: msg.id,
    kind: msg.kind,
    orgId: msg.orgId,
    attempt: n,
    status: result.status,
    durationMs,
    outcome: next.status,
    ...(result.ok ? {} : {
      error: result.error,
      nextAttemptAt: next.status === "pending" ? new Date(next.dueAt).toISOString() : undefined,
    }),
  });
}
