/**
 * A Deno KV handle on which every call survives a busy database: when several processes share
 * one local SQLite file, a call can fail with "database is locked" while another process writes.
 * {@link withBusyRetry} wraps a handle so that reads, writes, atomic commits and list pages are
 * tried again (growing random waits, bounded) instead of failing the request. Versionstamp checks
 * are untouched: a commit that fails its check still returns `ok: false`.
 *
 * @module
 */
import { isBusyError, retryBusy } from "./store.ts";

const RETRIED = new Set(["get", "getMany", "set", "delete", "enqueue"]);

/** `kv` with busy-database retries on every call (the service's one KV handle is wrapped). */
export function withBusyRetry(kv: Deno.Kv): Deno.Kv {
  return new Proxy(kv, {
    get(target, prop) {
      const value = Reflect.get(target, prop, target);
      if (typeof value !== "function") return value;
      if (typeof prop === "string" && RETRIED.has(prop)) {
        return (...args: unknown[]) => retryBusy(() => value.apply(target, args));
      }
      if (prop === "atomic") return () => retryingAtomic(target.atomic());
      if (prop === "list") {
        return (selector: Deno.KvListSelector, options?: Deno.KvListOptions) =>
          retryingList(target, selector, options);
      }
      return value.bind(target);
    },
  });
}

/** An atomic operation whose `commit` is retried while the database is busy. */
function retryingAtomic(op: Deno.AtomicOperation): Deno.AtomicOperation {
  const proxy: Deno.AtomicOperation = new Proxy(op, {
    get(target, prop) {
      const value = Reflect.get(target, prop, target);
      if (typeof value !== "function") return value;
      if (prop === "commit") return () => retryBusy(() => target.commit());
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
      for (let attempt = 1;; attempt++) {
        try {
          const r = await inner.next();
          if (!r.done) {
            given++;
            cursor = inner.cursor;
          }
          return r;
        } catch (err) {
          if (attempt >= 40 || !isBusyError(err)) throw err;
          await new Promise((r) => setTimeout(r, Math.min(50, 2 * attempt) + Math.random() * 10));
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
