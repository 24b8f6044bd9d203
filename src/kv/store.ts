import { ConflictError } from "../errors.ts";
import { badRequest } from "../errors.ts";

/** Reads one value, typed. */
export async function getValue<T>(kv: Deno.Kv, key: Deno.KvKey): Promise<Deno.KvEntryMaybe<T>> {
  return await kv.get<T>(key);
}

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

/** Parses `?limit=` (default 50, max 200) with a 400 on nonsense. */
export function parseLimit(raw: string | undefined): number {
  if (raw === undefined || raw === "") return 50;
  const n = Number(raw);
  if (!Number.isInteger(n) || n < 1 || n > 200) {
    throw badRequest(`limit must be an integer from 1 to 200, got "${raw}".`);
  }
  return n;
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
