/**
 * The outbox dispatcher: claims due messages with a lease and runs their attempts
 * (`attempt.ts`) within process-wide and per-org concurrency limits; an in-process loop, or one
 * pass (`runOnce`) for a cron or a test; stops cleanly at shutdown.
 *
 * @module
 */
import { keys } from "../kv/mod.ts";
import { recordBacklogAge } from "../telemetry/mod.ts";
import { log, Lru } from "../base/mod.ts";
import { runAttempt } from "./attempt.ts";
import type { OutboxHandler } from "./handler.ts";
import type { OutboxMessage } from "./outbox.ts";

/** What readiness reports of a dispatcher. */
export interface DispatcherState {
  /** The in-process loop runs (started and not stopping). */
  running: boolean;
  /** Attempts in flight in this process. */
  inflight: number;
  /** When the loop last finished a scan (ms since epoch), or null before the first. */
  lastScanAt: number | null;
}

/** Dispatcher options. */
export interface DispatcherOptions {
  /** Clock (ms since epoch); injectable in tests. */
  now?: () => number;
  /** How long a claim protects a message from other dispatchers. Default 30 s. */
  leaseMs?: number;
  /** Messages in flight at once in this process. Default 32. */
  concurrency?: number;
  /** Messages of one org in flight at once, so a slow org cannot hold up the others. Default 8. */
  perOrgConcurrency?: number;
  /** Longest sleep between scans when not woken. Default 1 s. */
  pollMs?: number;
  /** Identifies this dispatcher's leases (`leaseOwner`); default a random UUID. */
  owner?: string;
}

/**
 * Delivers outbox messages: claims due ones with a lease (atomic versionstamp check), runs the
 * handler of their kind, records the attempt, reschedules or dead-letters. Safe to run in several
 * processes on one KV; a message whose lease expired (its process died) is taken again.
 */
export class Dispatcher {
  readonly #kv: Deno.Kv;
  readonly #handlers = new Map<string, OutboxHandler<never>>();
  readonly #now: () => number;
  readonly #leaseMs: number;
  readonly #concurrency: number;
  readonly #perOrg: number;
  readonly #pollMs: number;
  readonly #owner: string;
  #inflight = 0;
  readonly #inflightByOrg = new Map<string, number>();
  readonly #inflightIds = new Set<string>();
  #running = false;
  /** Set by `stop`: nothing is claimed any more (the loop, `runOnce` from a cron) until `start`. */
  #closed = false;
  #lastScanAt: number | null = null;
  readonly #controllers = new Map<string, AbortController>();
  #wakeUp: (() => void) | null = null;
  #woken = false;
  #loop: Promise<void> | null = null;
  readonly #idleWaiters: (() => void)[] = [];
  /**
   * Where the next scan starts when the last one stopped at its window with room left: scans go
   * round a long backlog, so one org's due messages at the front cannot hide other orgs'.
   */
  #scanFrom: Deno.KvKey | null = null;
  /** The last scan passed over due messages because their org was at its concurrency limit. */
  #skippedBusy = false;
  /** Org of message ids seen (an id never changes org), so a busy org's backlog costs no reads. */
  readonly #orgOf = new Lru<string>(100_000);

  constructor(kv: Deno.Kv, opts: DispatcherOptions = {}) {
    this.#kv = kv;
    this.#now = opts.now ?? Date.now;
    this.#leaseMs = opts.leaseMs ?? 30_000;
    this.#concurrency = opts.concurrency ?? 32;
    this.#perOrg = opts.perOrgConcurrency ?? 8;
    this.#pollMs = opts.pollMs ?? 1000;
    this.#owner = opts.owner ?? crypto.randomUUID();
  }

  /** Registers the handler of a message kind. */
  register<P>(kind: string, handler: OutboxHandler<P>): this {
    this.#handlers.set(kind, handler as OutboxHandler<never>);
    return this;
  }

  /** Asks the loop to scan now (call after committing a message). */
  wake(): void {
    this.#woken = true;
    this.#wakeUp?.();
  }

  /** Starts the in-process loop. */
  start(): void {
    if (this.#running) return;
    this.#running = true;
    this.#closed = false;
    this.#loop = this.#run();
  }

  /**
   * Stops the loop (no new claims) and waits for the attempts in flight. With `graceMs`, attempts
   * still running after it are aborted: they are not counted and their leases are released, so
   * the messages are taken again later under the same ids. Resolves when every attempt has ended.
   */
  async stop(opts: { graceMs?: number } = {}): Promise<void> {
    this.#running = false;
    this.#closed = true;
    this.wake();
    await this.#loop;
    if (opts.graceMs === undefined) return await this.idle();
    let timer: ReturnType<typeof setTimeout> | undefined;
    const late = new Promise<"late">((r) => timer = setTimeout(() => r("late"), opts.graceMs));
    const outcome = await Promise.race([this.idle(), late]);
    clearTimeout(timer);
    if (outcome === "late") {
      for (const c of this.#controllers.values()) {
        c.abort(new Error("the process is shutting down"));
      }
      await this.idle();
    }
  }

  /** The loop's state, for readiness. */
  state(): DispatcherState {
    return { running: this.#running, inflight: this.#inflight, lastScanAt: this.#lastScanAt };
  }

  /** Resolves when nothing is in flight. */
  idle(): Promise<void> {
    if (this.#inflight === 0) return Promise.resolve();
    return new Promise((r) => this.#idleWaiters.push(r));
  }

  /**
   * One pass for cron or tests: claims and handles every message due now, waiting for them.
   * Returns how many attempts were made.
   */
  async runOnce(): Promise<number> {
    let total = 0;
    for (;;) {
      const started = await this.#claimBatch();
      total += started;
      await this.idle();
      if (started === 0 && this.#scanFrom === null) return total;
    }
  }

  async #run(): Promise<void> {
    while (this.#running) {
      let started = 0;
      try {
        started = await this.#claimBatch();
        this.#lastScanAt = this.#now();
      } catch (err) {
        log("error", "outbox scan failed", { error: err });
      }
      if (!this.#running) break;
      const full = this.#inflight >= this.#concurrency;
      if (started > 0 && !full) continue;
      let ms: number;
      // Full, or only busy orgs' messages were due: a finished attempt wakes the loop.
      if (started > 0 || full) ms = this.#pollMs;
      // The scan stopped at its window: go on round the backlog soon, without spinning.
      else if (this.#scanFrom !== null) ms = Math.min(this.#pollMs, 10);
      else if (this.#skippedBusy) ms = this.#pollMs;
      else ms = await this.#untilNextDue();
      await this.#sleep(ms);
    }
  }

  async #untilNextDue(): Promise<number> {
    for await (const e of this.#kv.list({ prefix: keys.outboxDuePrefix() }, { limit: 1 })) {
      const at = e.key[1] as number;
      return Math.max(0, Math.min(this.#pollMs, at - this.#now()));
    }
    return this.#pollMs;
  }

  #sleep(ms: number): Promise<void> {
    if (this.#woken) {
      this.#woken = false;
      return Promise.resolve();
    }
    return new Promise((resolve) => {
      const t = setTimeout(done, ms);
      function done() {
        clearTimeout(t);
        resolve();
      }
      this.#wakeUp = () => {
        this.#wakeUp = null;
        this.#woken = false;
        done();
      };
    });
  }

  /** Claims up to the free capacity of due messages and starts them. Returns how many started. */
  async #claimBatch(): Promise<number> {
    const free = this.#concurrency - this.#inflight;
    if (free <= 0 || this.#closed) return 0;
    const now = this.#now();
    let started = 0;
    const prefix = keys.outboxDuePrefix();
    const end = [...prefix, now + 1];
    const window = Math.max(free * 4, 16);
    const from = this.#scanFrom !== null && (this.#scanFrom[1] as number) <= now
      ? this.#scanFrom
      : null;
    this.#scanFrom = null;
    this.#skippedBusy = false;
    let examined = 0;
    let lastKey: Deno.KvKey | null = null;
    const iter = this.#kv.list<string>(from ? { start: from, end } : { prefix, end }, {
      limit: window,
    });
    let oldestDue: number | undefined;
    for await (const due of iter) {
      if (started >= free) break;
      examined++;
      oldestDue ??= due.key[1] as number;
      lastKey = due.key;
      const id = due.value;
      if (this.#inflightIds.has(id)) continue;
      const knownOrg = this.#orgOf.get(id);
      if (knownOrg !== undefined && (this.#inflightByOrg.get(knownOrg) ?? 0) >= this.#perOrg) {
        this.#skippedBusy = true;
        continue;
      }
      const cur = await this.#kv.get<OutboxMessage>(keys.outboxMessage(id));
      const msg = cur.value;
      if (!msg || msg.status !== "pending" || msg.dueAt !== due.key[1]) {
        // A pointer left behind by a finished or rescheduled message.
        this.#orgOf.delete(id);
        await this.#kv.atomic().check(due).delete(due.key).commit().catch(() => {});
        continue;
      }
      if (msg.dueAt > now) continue;
      const org = msg.orgId ?? "";
      this.#orgOf.set(id, org);
      if ((this.#inflightByOrg.get(org) ?? 0) >= this.#perOrg) {
        this.#skippedBusy = true;
        continue;
      }
      const leaseUntil = now + this.#leaseMs;
      const claimed: OutboxMessage = {
        ...msg,
        dueAt: leaseUntil,
        leaseOwner: this.#owner,
        leaseUntil,
      };
      const res = await this.#kv.atomic().check(cur).delete(due.key)
        .set(keys.outboxDue(leaseUntil, id), id).set(keys.outboxMessage(id), claimed).commit();
      if (!res.ok) continue; // another dispatcher won
      started++;
      this.#track(org, id, +1);
      this.#attempt(claimed, res.versionstamp).catch((err) => {
        log("error", "outbox attempt failed unexpectedly", { id, kind: msg.kind, error: err });
      }).finally(() => {
        this.#track(org, id, -1);
        this.wake();
      });
    }
    if (from === null) {
      recordBacklogAge(oldestDue === undefined ? 0 : Math.max(0, now - oldestDue) / 1000);
    }
    // Stopped at the window with room left: the next scan goes on from here (inclusive).
    if (examined >= window && started < free) this.#scanFrom = lastKey;
    return started;
  }

  #track(org: string, id: string, d: number): void {
    this.#inflight += d;
    this.#inflightByOrg.set(org, (this.#inflightByOrg.get(org) ?? 0) + d);
    if (d > 0) this.#inflightIds.add(id);
    else this.#inflightIds.delete(id);
    if (this.#inflight === 0) this.#idleWaiters.splice(0).forEach((r) => r());
  }

  async #attempt(msg: OutboxMessage, versionstamp: string): Promise<void> {
    const controller = new AbortController();
    this.#controllers.set(msg.id, controller);
    try {
      await runAttempt(
        { kv: this.#kv, now: this.#now },
        this.#handlers.get(msg.kind),
        msg,
        versionstamp,
        controller.signal,
      );
    } finally {
      this.#controllers.delete(msg.id);
    }
  }
}
