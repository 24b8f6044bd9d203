/**
 * Fetched status lists, kept as long as they say: a list is used until it is older than its `ttl`
 * (or, without one, the DID cache TTL) and never past its `exp` / `validUntil` ({@link freshUntil}).
 * Two tiers: this process's memory (one bounded {@link Lru}) and KV (`keys.statusList(url)`,
 * shared by every process), where a list fits one value. Only lists that verified are kept; a
 * list that could not be fetched is not asked again for a minute ({@link StatusListCache.fetch}).
 *
 * @module
 */
import { keys } from "../kv/mod.ts";
import { KV_DATA_MAX, Lru } from "../base/mod.ts";
import { StatusProblem } from "./fetch_list.ts";

/** A verified status list. */
export interface CachedList {
  url: string;
  /** `ldp`: a status list credential (JSON); `jwt`: a `statuslist+jwt`. */
  kind: "ldp" | "jwt";
  /** The list as fetched. */
  body: string;
  /** The issuer it verified for. */
  issuer: string;
  fetchedAt: number;
  /** Used until then (ms since epoch). */
  freshUntil: number;
}

/**
 * Until when a list fetched at `fetchedAt` is used: `ttlMs` after it (the default when the list
 * gives none, or a non-positive one), and never past `expiresAt`.
 */
export function freshUntil(input: {
  fetchedAt: number;
  ttlMs?: number;
  expiresAt?: number;
  defaultTtlMs: number;
}): number {
  const ttl = input.ttlMs !== undefined && Number.isFinite(input.ttlMs) && input.ttlMs > 0
    ? input.ttlMs
    : input.defaultTtlMs;
  return Math.min(input.fetchedAt + ttl, input.expiresAt ?? Infinity);
}

/** Largest list body kept in KV (one value). Larger ones stay in memory only. */
const KV_MAX_CHARS = KV_DATA_MAX;

/**
 * How long a list that could not be fetched is not asked again (its failure is the answer): a host
 * that is down or hangs is asked once, not once for every credential that names it.
 */
export const UNREACHABLE_MS = 60_000;

/** The two-tier cache of verified lists. */
export class StatusListCache {
  readonly #kv: Deno.Kv;
  readonly #memory = new Lru<CachedList>(500, {
    maxWeight: 32 * 1024 * 1024,
    weigh: (e) => e.body.length,
  });

  readonly #unreachable = new Lru<{ until: number; message: string }>(1000);

  constructor(kv: Deno.Kv) {
    this.#kv = kv;
  }

  /**
   * `fetch()`es the list at `url`, unless fetching it failed less than {@link UNREACHABLE_MS}
   * ago: then that {@link StatusProblem} again, without a request. `now` is read after a failure
   * (a fetch may have waited for its timeout).
   */
  async fetch(url: string, now: () => number, fetch: () => Promise<string>): Promise<string> {
    const failed = this.#unreachable.get(url);
    if (failed && failed.until > now()) throw new StatusProblem(failed.message);
    try {
      return await fetch();
    } catch (err) {
      if (err instanceof StatusProblem) {
        this.#unreachable.set(url, { until: now() + UNREACHABLE_MS, message: err.message });
      }
      throw err;
    }
  }

  /** The list at `url` when it is still fresh at `now`. */
  async get(url: string, kind: CachedList["kind"], now: number): Promise<CachedList | undefined> {
    let entry = this.#memory.get(url);
    if (!entry || entry.freshUntil <= now) {
      entry = (await this.#kv.get<CachedList>(keys.statusList(url))).value ?? undefined;
      if (entry && entry.freshUntil > now) this.#memory.set(url, entry);
    }
    return entry && entry.kind === kind && entry.freshUntil > now ? entry : undefined;
  }

  /** Keeps a verified list until its `freshUntil`. */
  async put(entry: CachedList, now: number): Promise<void> {
    if (entry.freshUntil <= now) return;
    this.#memory.set(entry.url, entry);
    if (entry.body.length <= KV_MAX_CHARS) {
      // expireIn only collects it; freshness is `freshUntil`, checked on every read.
      await this.#kv.set(keys.statusList(entry.url), entry, {
        expireIn: Math.max(1000, entry.freshUntil - now),
      });
    }
  }
}
