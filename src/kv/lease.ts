/**
 * A lease on a piece of work, kept in KV (`{until}` in the value under the work's key): one
 * request at a time holds it, across every process sharing the database; it is given back when
 * the work ends and runs out by itself should a process die holding it. The OpenID4VC holders
 * lease an offer's accept and a presentation request's answer with it.
 *
 * @module
 */
import { atomicUpdate } from "./store.ts";

/** What a lease is taken with. */
export interface LeaseOptions {
  /** How long the lease holds without being given back. */
  ms: number;
  /** The clock, ms since epoch. */
  now: () => number;
  /** The error thrown while another holds the lease (a 409 naming the work). */
  busy: () => Error;
}

/**
 * Runs `work` holding the lease of `key`; throws `busy()` (running nothing) while another holds
 * it. The lease is given back when `work` ends, thrown or not; only this lease: one that ran out
 * and was taken by another stays.
 */
export async function withLease<T>(
  kv: Deno.Kv,
  key: Deno.KvKey,
  opts: LeaseOptions,
  work: () => Promise<T>,
): Promise<T> {
  const lease = { until: 0 };
  await atomicUpdate(kv, async (op) => {
    const now = opts.now();
    const held = await kv.get<{ until: number }>(key);
    if (held.value && held.value.until > now) throw opts.busy();
    lease.until = now + opts.ms;
    op.check(held).set(key, lease, { expireIn: opts.ms * 2 });
  });
  try {
    return await work();
  } finally {
    await atomicUpdate(kv, async (op) => {
      const held = await kv.get<{ until: number }>(key);
      if (held.value?.until === lease.until) op.check(held).delete(key);
    });
  }
}
