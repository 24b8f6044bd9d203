/**
 * Credential status for the features that store credentials: a check now (`statusOf`, on receipt
 * and before a presentation), the first status recorded with the credential (`record`), a check
 * on demand that is kept and announced (`check`), and the recheck cron (`cronTick`: once per tick
 * across every process sharing KV, the due ones in bounded batches).
 *
 * @module
 */
import { atomicUpdate, keys } from "../kv/mod.ts";
import { log } from "../base/mod.ts";
import type { StatusChecker } from "./checker.ts";
import { addStatus, addStatusUpdate, knownStatus, readStatus, type StoredStatus } from "./store.ts";
import { targetOf } from "./target.ts";
import type { CredentialStatus, StatusSubject } from "./types.ts";

/** What the service is built from. */
export interface StatusServiceDeps {
  kv: Deno.Kv;
  checker: Pick<StatusChecker, "check">;
  /** Woken after a commit that queued an event. */
  dispatcher: { wake(): void };
  now: () => number;
  /** `CREDENTIAL_STATUS_RECHECK_SECONDS` (0: the cron rechecks nothing). */
  recheckSeconds: number;
}

/** Length of one cron tick (Deno.cron's finest schedule is one minute). */
export const TICK_MS = 60_000;
/** Statuses rechecked by one tick at most (the rest are taken by the next ticks). */
const TICK_BATCH = 500;
/** Checks in flight at once during a tick. */
const TICK_PARALLEL = 8;

/** The status side of every stored credential. */
export class StatusService {
  readonly #d: StatusServiceDeps;

  constructor(deps: StatusServiceDeps) {
    this.#d = deps;
  }

  /**
   * The status of a credential now, nothing stored: what a feature asks on receipt (refusing a
   * `revoked` one) and before a presentation (never offering a `revoked` or `suspended` one).
   * Never throws; `unknown` says why in `message`.
   */
  statusOf(subject: StatusSubject): Promise<CredentialStatus> {
    return this.#d.checker.check(targetOf(subject));
  }

  /**
   * The status of stored credential `id` of `orgId` before a presentation: checked now
   * ({@link statusOf}), except that a list that cannot be read now does not undo a revocation or
   * suspension a list gave before (kept with the status, also when a later check stored
   * `unknown`). The features that present never offer a credential whose answer is `revoked` or
   * `suspended`.
   */
  async beforePresentation(
    orgId: string,
    id: string,
    subject: StatusSubject,
  ): Promise<CredentialStatus> {
    const now = await this.statusOf(subject);
    if (now.state !== "unknown") return now;
    const known = knownStatus((await readStatus(this.#d.kv, orgId, id))?.value);
    return known?.state === "revoked" || known?.state === "suspended" ? known : now;
  }

  /** Adds the first status of a credential being stored to `op` (the same commit). */
  record(
    op: Deno.AtomicOperation,
    input: { orgId: string; id: string; subject: StatusSubject; status: CredentialStatus },
  ): void {
    addStatus(op, {
      orgId: input.orgId,
      id: input.id,
      format: input.subject.format,
      target: targetOf(input.subject),
      status: input.status,
      dueAt: this.#nextDue(),
    });
  }

  /**
   * Checks a stored credential again now (lists older than their `ttl` are fetched again), keeps
   * the answer and emits `credential.status_changed` when its state changed. `subject` is the
   * stored credential (what a status recorded before is checked from, when there is none).
   */
  async check(orgId: string, id: string, subject: StatusSubject): Promise<CredentialStatus> {
    const entry = await readStatus(this.#d.kv, orgId, id);
    const target = entry?.value.target ?? targetOf(subject);
    const status = await this.#d.checker.check(target);
    return await this.#keep({ orgId, id, format: subject.format, target }, entry, status);
  }

  /** Keeps `status`, version-checked (a lost race is read again and kept on top). */
  async #keep(
    what: Pick<StoredStatus, "orgId" | "id" | "format" | "target">,
    first: Deno.KvEntry<StoredStatus> | null,
    status: CredentialStatus,
  ): Promise<CredentialStatus> {
    let entry = first;
    await atomicUpdate(this.#d.kv, async (op, attempt) => {
      if (attempt > 0) entry = await readStatus(this.#d.kv, what.orgId, what.id);
      addStatusUpdate(op, entry, { ...what, status, dueAt: this.#nextDue() }, this.#d.now());
    });
    this.#d.dispatcher.wake();
    return status;
  }

  #nextDue(): number | null {
    const s = this.#d.recheckSeconds;
    return s > 0 ? this.#d.now() + s * 1000 : null;
  }

  /**
   * The recheck cron's body: takes this tick (one process per tick across KV), then rechecks up
   * to {@link TICK_BATCH} statuses that are due. Returns how many were rechecked (0 when another
   * process has the tick, or rechecks are off).
   */
  async cronTick(): Promise<number> {
    if (this.#d.recheckSeconds <= 0) return 0;
    const now = this.#d.now();
    const tick = keys.statusRecheckTick(Math.floor(now / TICK_MS) * TICK_MS);
    const taken = await this.#d.kv.atomic().check({ key: tick, versionstamp: null })
      .set(tick, { at: now }, { expireIn: 24 * 3_600_000 }).commit();
    if (!taken.ok) return 0;
    return await this.recheckDue();
  }

  /** Rechecks the statuses due now (at most `limit`); how many. */
  async recheckDue(limit = TICK_BATCH): Promise<number> {
    const now = this.#d.now();
    const due: [string, string][] = [];
    for await (
      const e of this.#d.kv.list({
        start: keys.credentialStatusDuePrefix(),
        end: [...keys.credentialStatusDuePrefix(), now + 1],
      }, { limit })
    ) {
      const [, , orgId, id] = e.key as [string, number, string, string];
      due.push([orgId, id]);
    }
    let done = 0;
    for (let i = 0; i < due.length; i += TICK_PARALLEL) {
      await Promise.all(
        due.slice(i, i + TICK_PARALLEL).map(async ([orgId, id]) => {
          try {
            const entry = await readStatus(this.#d.kv, orgId, id);
            if (!entry || entry.value.dueAt === null || entry.value.dueAt > now) return;
            const status = await this.#d.checker.check(entry.value.target);
            await this.#keep(entry.value, entry, status);
            done++;
          } catch (err) {
            log("warn", "credential status recheck failed", { orgId, id, error: err });
          }
        }),
      );
    }
    return done;
  }
}
