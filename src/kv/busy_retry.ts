/**
 * The one busy-database retry layer of the service. When several processes share one local SQLite
 * file, a call can fail with "database is locked" while another process holds the write lock: a
 * plain write after SQLite's own 5 s wait, an atomic commit with checks (a read turned write) at
 * once. {@link withBusyRetry} wraps a handle so that reads, writes, atomic commits and list pages
 * are tried again (random waits growing to 50 ms) for up to {@link BUSY_RETRY_MS} in all, instead
 * of failing the request. Nothing else retries a busy database:
 * code that holds the wrapped handle (the service's one KV handle, `compose.ts`) calls KV plainly.
 * Versionstamp checks are untouched: a commit that fails its check still returns `ok: false`
 * (the conflict policy, `atomicUpdate`, decides what happens then).
 *
 * @module
 */

/** How long a call is tried again while the database stays busy (after that the error stands). */
export const BUSY_RETRY_MS = 10_000;

const RETRIED = new Set(["get", "getMany", "set", "delete", "enqueue"]);

/** Options of {@link withBusyRetry}. */
export interface BusyRetryOptions {
  /** How long to go on trying a busy call; default {@link BUSY_RETRY_MS}. */
  retryMs?: number;
}

/** `kv` with busy-database retries on every call (the service's one KV handle is wrapped). */
export function withBusyRetry(kv: Deno.Kv, opts: BusyRetryOptions = {}): Deno.Kv {
  const retryMs = opts.retryMs ?? BUSY_RETRY_MS;
  const again = <T>(fn: () => Promise<T>) => retryBusy(fn, retryMs);
  return new Proxy(kv, {
    get(target, prop) {
      const value = Reflect.get(target, prop, target);
      if (typeof value !== "function") return value;
      if (typeof prop === "string" && RETRIED.has(prop)) {
        return (...args: unknown[]) => again(() => value.apply(target, args));
      }
      if (prop === "atomic") return () => retryingAtomic(target.atomic(), again);
      if (prop === "list") {
        return (selector: Deno.KvListSelector, options?: Deno.KvListOptions) =>
          retryingList(target, retryMs, selector, options);
      }
      return value.bind(target);
    },
  });
}

/** True for the error of a local SQLite KV file that another process holds (busy / locked). */
function isBusyError(err: unknown): boolean {
  return err instanceof Error && /database is locked|busy/i.test(err.message);
}

/** Runs `fn` again while it fails because the database is busy, for up to `retryMs`. */
async function retryBusy<T>(fn: () => Promise<T>, retryMs: number): Promise<T> {
  const t0 = performance.now();
  for (let i = 1;; i++) {
    try {
      return await fn();
    } catch (err) {
      if (!isBusyError(err) || performance.now() - t0 >= retryMs) throw err;
      await pause(i);
    }
  }
}

function pause(tries: number): Promise<void> {
  return new Promise((r) => setTimeout(r, Math.min(50, 2 * tries) + Math.random() * 10));
}

/** An atomic operation whose `commit` is retried while the database is busy. */
function retryingAtomic(
  op: Deno.AtomicOperation,
  again: <T>(fn: () => Promise<T>) => Promise<T>,
): Deno.AtomicOperation {
  const proxy: Deno.AtomicOperation = new Proxy(op, {
    get(target, prop) {
      const value = Reflect.get(target, prop, target);
      if (typeof value !== "function") return value;
      if (prop === "commit") return () => again(() => target.commit());
      // Builder methods return the operation itself: keep returning the proxy.
      return (...args: unknown[]) => {
        const out = value.apply(target, args);
        return out === target ? proxy : out;
      };
    },
  });
  return proxy;
}

/**
 * A list iterator that, when fetching a page fails because the database is busy, starts again
 * from the cursor of the last entry it gave out.
 */
function retryingList<T>(
  kv: Deno.Kv,
  retryMs: number,
  selector: Deno.KvListSelector,
  options: Deno.KvListOptions = {},
): Deno.KvListIterator<T> {
  let inner = kv.list<T>(selector, options);
  let cursor = options.cursor ?? "";
  let given = 0;
  const limit = options.limit;
  const iterator = {
    get cursor(): string {
      return cursor;
    },
    async next(): Promise<IteratorResult<Deno.KvEntry<T>, undefined>> {
      const t0 = performance.now();
      for (let attempt = 1;; attempt++) {
        try {
          const r = await inner.next();
          if (!r.done) {
            given++;
            cursor = inner.cursor;
          }
          return r;
        } catch (err) {
          if (!isBusyError(err) || performance.now() - t0 >= retryMs) throw err;
          await pause(attempt);
          const rest = limit === undefined ? undefined : limit - given;
          inner = kv.list<T>(selector, {
            ...options,
            ...(cursor ? { cursor } : {}),
            ...(rest !== undefined ? { limit: rest } : {}),
          });
        }
      }
    },
    [Symbol.asyncIterator]() {
      return iterator;
    },
  };
  return iterator as unknown as Deno.KvListIterator<T>;
}
