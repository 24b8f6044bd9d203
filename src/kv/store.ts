import { badRequest, ConflictError } from "../errors.ts";

/** Commits an atomic operation; a failed check becomes a ConflictError (409), never a silent overwrite. */
export async function commitOrConflict(
  op: Deno.AtomicOperation,
  message?: string,
): Promise<Deno.KvCommitResult> {
  const res = await op.commit();
  if (!res.ok) throw new ConflictError(message);
  return res;
}

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

/** Options of {@link atomicUpdate}. */
export interface AtomicUpdateOptions {
  /** Attempts before giving up with a conflict. Default 5. */
  tries?: number;
  /** The error thrown when every attempt lost its race; default a generic 409. */
  conflict?: () => Error;
}

/**
 * The one read-modify-write loop of the service. `step` reads what it needs (fresh on every
 * attempt), adds its checks and writes to `op` and returns the result; the operation is then
 * committed. A failed check (another writer changed what was read), or a `ConflictError` thrown by
 * the step, runs `step` again after a short random wait, up to `tries` times, then throws
 * `conflict()` (409 by default). A step may throw any other error (an AppError such as 404) to
 * stop at once. A busy local SQLite file (several processes on one KV file) is retried by the
 * handle itself (`withBusyRetry`), not here.
 */
export async function atomicUpdate<T>(
  kv: Deno.Kv,
  step: (op: Deno.AtomicOperation, attempt: number) => Promise<T> | T,
  opts: AtomicUpdateOptions = {},
): Promise<T> {
  const tries = opts.tries ?? 5;
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
