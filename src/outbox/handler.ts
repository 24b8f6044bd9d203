/**
 * What the outbox asks of a message kind: its handler (the effect, one attempt at a time), its
 * retry schedule and its dead-letter hook; and how long finished messages are kept.
 *
 * @module
 */
import type { OutboxMessage } from "./outbox.ts";

/** Result of one attempt. `final: true` dead-letters at once (e.g. 410 Gone). */
export type HandlerResult =
  | { ok: true; status?: number }
  | { ok: false; error: string; status?: number; retryAfterMs?: number; final?: boolean };

/** What a handler gets beside its message. */
export interface AttemptContext {
  /**
   * Aborted when the process shuts down before the attempt ended: stop (pass it to outbound
   * calls); the attempt is then not counted and its lease is released, so the message is taken
   * again later (by this or another process) under the same id.
   */
  signal: AbortSignal;
}

/** Handles one kind of message. */
export interface OutboxHandler<P = unknown> {
  /** Performs the effect. Must not throw for expected failures; a throw counts as a failure. */
  handle(message: OutboxMessage<P>, ctx: AttemptContext): Promise<HandlerResult>;
  /** Delays (ms) before retry 1, 2, …; the message is dead after `schedule.length + 1` attempts. */
  schedule: readonly number[];
  /**
   * Called inside the atomic operation that dead-letters a message, so follow-up effects
   * (an event) commit together with it.
   */
  onDead?(message: OutboxMessage<P>, op: Deno.AtomicOperation, now: number): void | Promise<void>;
}

/** How long a succeeded message (and its delivery-log entry) is kept: 30 days. */
export const SUCCEEDED_RETENTION_MS = 30 * 24 * 3_600_000;
/** How long a dead message and attempt records are kept: 90 days. A manual retry keeps it alive. */
export const DEAD_RETENTION_MS = 90 * 24 * 3_600_000;
