import { badRequest, ConflictError } from "../base/mod.ts";

/** A page of a list: newest first. */
export interface Page<T> {
  data: T[];
  nextCursor: string | null;
}

/**
 * Lists values under `prefix`, newest first (keys sort by time-ordered ids), one page at a time.
 * `filter` drops values without counting them toward the page; `map` (optional, may be async)
 * turns each stored value into the page item, `undefined` dropping it the same way.
 * `batchSize` is passed to `kv.list`.
 */
export async function listPage<T, U = T>(
  kv: Deno.Kv,
  prefix: Deno.KvKey,
  opts: {
    limit: number;
    cursor?: string;
    filter?: (v: T) => boolean;
    map?: (v: T) => U | undefined | Promise<U | undefined>;
    batchSize?: number;
  },
): Promise<Page<U>> {
  const data: U[] = [];
  let iter: Deno.KvListIterator<T>;
  try {
    iter = kv.list<T>({ prefix }, {
      reverse: true,
      cursor: opts.cursor || undefined,
      ...(opts.batchSize ? { batchSize: opts.batchSize } : {}),
    });
  } catch {
    throw badRequest("cursor is not valid for this list.");
  }
  let next: string | null = null;
  try {
    for await (const entry of iter) {
      if (opts.filter && !opts.filter(entry.value)) continue;
      // Without `map` the page holds the stored values themselves (U defaults to T).
      const item = opts.map ? await opts.map(entry.value) : entry.value as unknown as U;
      if (opts.map && item === undefined) continue;
      data.push(item as U);
      if (data.length >= opts.limit) {
        next = iter.cursor;
        break;
      }
    }
  } catch (err) {
    if (opts.cursor) throw badRequest("cursor is not valid for this list.");
    throw err;
  }
  return { data, nextCursor: next };
}

/**
 * One page of the records kept as `{record, …}` values under `prefix` (an org's exchanges, offers
 * or requests), newest first, only those in `q.state` when it is given.
 */
export async function listRecords<R extends { state: string }>(
  kv: Deno.Kv,
  prefix: Deno.KvKey,
  q: { limit: number; cursor?: string; state?: R["state"] },
): Promise<Page<R>> {
  const page = await listPage<{ record: R }>(kv, prefix, {
    limit: q.limit,
    cursor: q.cursor,
    filter: q.state ? (s) => s.record.state === q.state : undefined,
  });
  return { data: page.data.map((s) => s.record), nextCursor: page.nextCursor };
}

/**
 * How many times {@link atomicUpdate} runs a step whose commit keeps losing its race before it
 * answers 409. Each lost race means another writer got through, so this bounds how many writers
 * may change one record at the same moment before one caller is told to try again.
 */
export const CONFLICT_TRIES = 6;

/** Options of {@link atomicUpdate}. */
export interface AtomicUpdateOptions {
  /**
   * Attempts before giving up with a conflict. Default {@link CONFLICT_TRIES}; only a counter
   * that every contender must pass through (`agents/attempt_limits.ts`) sets its own.
   */
  tries?: number;
  /** The error thrown when every attempt lost its race; default a generic 409. */
  conflict?: () => Error;
}

/**
 * The one read-modify-write loop of the service, and its one conflict policy: a lost race is
 * retried, never reported as such. `step` reads what it needs (fresh on every attempt), decides
 * from what it read, adds its checks and writes to `op` and returns the result; the operation is
 * then committed. A failed check (another writer changed what was read), or a `ConflictError`
 * thrown by the step, runs `step` again on fresh data after a short random wait, so the answer is
 * the one the current state gives (a step throws an AppError such as 404, or a 409 that names the
 * state, to stop at once). Only after `tries` lost races in a row does it throw `conflict()` (409
 * by default). A busy local SQLite file (several processes on one KV file) is retried by the
 * handle itself (`withBusyRetry`), not here.
 */
export async function atomicUpdate<T>(
  kv: Deno.Kv,
  step: (op: Deno.AtomicOperation, attempt: number) => Promise<T> | T,
  opts: AtomicUpdateOptions = {},
): Promise<T> {
  const tries = opts.tries ?? CONFLICT_TRIES;
  for (let attempt = 0;; attempt++) {
    const op = kv.atomic();
    let value: T;
    try {
      value = await step(op, attempt);
    } catch (err) {
      if (!(err instanceof ConflictError) || attempt + 1 >= tries) throw err;
      await sleep(Math.random() * 5 * (attempt + 1));
      continue;
    }
    const res = await op.commit();
    if (res.ok) return value;
    if (attempt + 1 >= tries) throw opts.conflict?.() ?? new ConflictError();
    await sleep(Math.random() * 5 * (attempt + 1));
  }
}

function sleep(ms: number): Promise<void> {
  return new Promise((r) => setTimeout(r, ms));
}
