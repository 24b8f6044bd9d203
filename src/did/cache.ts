/**
 * Caching decorator around a `DidRegistry`.
 *
 * - Deterministic results (did:key, did:jwk, did:peer 0/2/4 long) are memoized in a bounded
 *   in-memory LRU. They are recomputed-equivalent, never stale, and not "the cache" of the
 *   contract: `servedFromCache` stays false for them (it is true only for a stored network answer).
 * - Network results (did:web, universal resolver) are stored in KV under `keys.didCache(did)` as
 *   `{result, cachedAt, expiresAt}` (`expiresAt` = now + `DID_CACHE_TTL_SECONDS`; `notFound` at
 *   most 30 s; failures never; `expireIn` only collects garbage), with a bounded LRU in front.
 *   A hit answers with `servedFromCache: true`. A KV read failure counts as a miss.
 * - Stale-while-revalidate: a successful network answer past `expiresAt` but within
 *   `maxStaleSeconds` of it is still served at once (`servedFromCache: true`, `max-age=0`) and
 *   refreshed in the background, at most one refresh per DID at a time. A refresh that fails (an
 *   error result or a network failure) keeps the old entry, and the next refresh is tried no sooner
 *   than `NOT_FOUND_TTL_SECONDS` later; past the max stale age the entry is not served and the DID
 *   is fetched as on a miss. `notFound` answers are never served stale.
 * - `noCache` skips both caches and stores the fresh answer (bypass and refresh).
 * - Concurrent misses for one DID share one lookup, and all upstream fetches for one DID are
 *   single-flight.
 */
import { keys } from "../kv/mod.ts";
import { Lru } from "../lru.ts";
import { log } from "../log.ts";
import { countDidCacheLookup } from "../telemetry/mod.ts";
import { DidAnswer, withServedFromCache } from "./answer.ts";
import type { DidRegistry, RoutedDid } from "./resolver.ts";
import { type DidResolutionResult, type DidVersion, resolutionError } from "./types.ts";

/** Longest a `notFound` answer is cached. */
export const NOT_FOUND_TTL_SECONDS = 30;
/** Extra KV lifetime past the max stale age before garbage collection. */
const GC_SLACK_MS = 60_000;
/**
 * Default byte bounds of the in-memory caches. A did:key answer is about 1.6 KB serialized and
 * costs about 35 µs to make again; a network answer costs a KV read or a fetch.
 */
export const DEFAULT_MEMO_BYTES = 4 * 1024 * 1024;
export const DEFAULT_LRU_BYTES = 8 * 1024 * 1024;
/** A network entry's own fields, besides its answer. */
const NET_ENTRY_BYTES = 64;
/** Deno KV values are at most 64 KiB; larger results are kept in memory only. */
const KV_VALUE_LIMIT = 60_000;

/** What is stored under `keys.didCache(did)`. */
export interface DidCacheEntry {
  result: DidResolutionResult;
  cachedAt: number;
  expiresAt: number;
}

/** Options of `createCachingResolver`. */
export interface CacheOptions {
  kv: Deno.Kv;
  /** Freshness of network results in seconds (0 disables storing them). */
  ttlSeconds: number;
  /** How long past its TTL a successful network answer may be served while refreshed; default 0. */
  maxStaleSeconds?: number;
  /** Clock, ms since epoch. */
  now: () => number;
  /** Entry bound of the deterministic memo. Default 100 000. */
  memoSize?: number;
  /** Byte bound of the deterministic memo (serialized answers). Default 4 MiB. */
  memoBytes?: number;
  /** Entry bound of the network LRU. Default 50 000. */
  lruSize?: number;
  /** Byte bound of the network LRU (serialized answers). Default 8 MiB. */
  lruBytes?: number;
}

/** Per-call options. */
export interface ResolveOptions {
  /** Bypass the caches and refresh them (`?noCache=true`, `Cache-Control: no-cache`). */
  noCache?: boolean;
  /** A version of the document (DID parameters): resolved by the method, never cached. */
  version?: DidVersion;
}

/** The resolver with caching. */
export interface CachingResolver {
  /** The memoized or cached answer for `did` if there is a fresh one in memory; no I/O. */
  peek(did: string): DidAnswer | undefined;
  /** A prepared answer (status, freshness, cached bytes). */
  resolveAnswer(did: string, options?: ResolveOptions): Promise<DidAnswer>;
  /** The W3C resolution result (frozen; copy before changing it). */
  resolve(did: string, options?: ResolveOptions): Promise<DidResolutionResult>;
  /** Empties the in-memory caches (not KV). */
  clearMemory(): void;
}

interface NetEntry {
  answer: DidAnswer;
  expiresAt: number;
  /** Served (stale) and refreshed in the background until then. */
  staleUntil: number;
  /** The DID method, for the hit counter (no slicing on the hot path). */
  method: string;
}

function isEntry(v: unknown): v is DidCacheEntry {
  if (typeof v !== "object" || v === null) return false;
  const e = v as Partial<DidCacheEntry>;
  return typeof e.cachedAt === "number" && typeof e.expiresAt === "number" &&
    typeof e.result === "object" && e.result !== null &&
    typeof e.result.didResolutionMetadata === "object";
}

/** Wraps `registry` with the memo, the LRU, KV and single-flight. */
export function createCachingResolver(
  registry: DidRegistry,
  options: CacheOptions,
): CachingResolver {
  const { kv, now } = options;
  const ttlMs = options.ttlSeconds * 1000;
  const maxStaleMs = (options.maxStaleSeconds ?? 0) * 1000;
  const memo = new Lru<DidAnswer>(options.memoSize ?? 100_000, {
    maxWeight: options.memoBytes ?? DEFAULT_MEMO_BYTES,
    weigh: (a) => a.weight,
  });
  const lru = new Lru<NetEntry>(options.lruSize ?? 50_000, {
    maxWeight: options.lruBytes ?? DEFAULT_LRU_BYTES,
    weigh: (e) => e.answer.weight + NET_ENTRY_BYTES,
  });
  const lookups = new Map<string, Promise<DidAnswer>>();
  const fetches = new Map<string, Promise<DidAnswer>>();
  /** DIDs being refreshed in the background, and DIDs whose last refresh failed (retry time). */
  const refreshing = new Set<string>();
  const retryAt = new Map<string, number>();

  /** Until when `entry` may be served: past its TTL only for successful answers. */
  function staleUntilOf(entry: DidCacheEntry): number {
    return entry.result.didResolutionMetadata.error === undefined
      ? entry.expiresAt + maxStaleMs
      : entry.expiresAt;
  }

  function cachedAnswer(did: string, entry: DidCacheEntry): NetEntry {
    const answer = new DidAnswer(withServedFromCache(entry.result, true), {
      kind: "until",
      expiresAt: entry.expiresAt,
    });
    return {
      answer,
      expiresAt: entry.expiresAt,
      staleUntil: staleUntilOf(entry),
      method: methodOf(did),
    };
  }

  /**
   * Refreshes a stale entry in the background, once per DID at a time; a failure keeps the old
   * entry (and waits before the next try). Never rejects.
   */
  function revalidate(did: string, routed?: RoutedDid): void {
    if (refreshing.has(did)) return;
    const t = now();
    const retry = retryAt.get(did);
    if (retry !== undefined && retry > t) return;
    const r = routed ?? registry.route(did);
    if (!("parsed" in r)) return;
    refreshing.add(did);
    (async () => {
      countDidCacheLookup(false, r.parsed.method);
      let result: DidResolutionResult;
      try {
        result = await r.resolve();
      } catch (err) {
        result = resolutionError("internalError", String(err));
      }
      if (result.didResolutionMetadata.error === undefined) {
        retryAt.delete(did);
        await store(did, result, now());
      } else {
        retryAt.set(did, now() + NOT_FOUND_TTL_SECONDS * 1000);
        log("warn", "did cache refresh failed; serving the stale entry", {
          did,
          error: result.didResolutionMetadata.error,
          message: result.didResolutionMetadata.message,
        });
      }
    })().catch((err) => log("warn", "did cache refresh failed", { did, error: err }))
      .finally(() => refreshing.delete(did));
  }

  async function store(
    did: string,
    result: DidResolutionResult,
    t: number,
  ): Promise<number | undefined> {
    const error = result.didResolutionMetadata.error;
    let life = ttlMs;
    if (error === "notFound") life = Math.min(ttlMs, NOT_FOUND_TTL_SECONDS * 1000);
    else if (error !== undefined) return undefined;
    if (life <= 0) return undefined;
    const entry: DidCacheEntry = { result, cachedAt: t, expiresAt: t + life };
    lru.set(did, cachedAnswer(did, entry));
    const keep = staleUntilOf(entry) - t;
    try {
      if (JSON.stringify(entry).length <= KV_VALUE_LIMIT) {
        await kv.set(keys.didCache(did), entry, { expireIn: keep + GC_SLACK_MS });
      }
    } catch (err) {
      log("warn", "did cache write failed", { did, error: err });
    }
    return entry.expiresAt;
  }

  /** One upstream resolution per DID at a time; stores the result. */
  function fetchShared(routed: RoutedDid): Promise<DidAnswer> {
    const did = routed.parsed.did;
    let p = fetches.get(did);
    if (!p) {
      p = (async () => {
        countDidCacheLookup(false, routed.parsed.method);
        const result = await routed.resolve();
        const expiresAt = await store(did, result, now());
        return new DidAnswer(
          withServedFromCache(result, false),
          expiresAt === undefined ? { kind: "none" } : { kind: "until", expiresAt },
        );
      })().finally(() => fetches.delete(did));
      fetches.set(did, p);
    }
    return p;
  }

  async function readKv(did: string): Promise<DidCacheEntry | undefined> {
    try {
      const got = await kv.get<DidCacheEntry>(keys.didCache(did));
      return isEntry(got.value) ? got.value : undefined;
    } catch (err) {
      log("warn", "did cache read failed; treating it as a miss", { did, error: err });
      return undefined;
    }
  }

  /** Miss path of a network DID: KV, then upstream; shared by concurrent callers. */
  function lookupShared(routed: RoutedDid): Promise<DidAnswer> {
    const did = routed.parsed.did;
    let p = lookups.get(did);
    if (!p) {
      p = (async () => {
        const entry = await readKv(did);
        const t = now();
        if (entry && staleUntilOf(entry) > t) {
          const net = cachedAnswer(did, entry);
          lru.set(did, net);
          countDidCacheLookup(true, routed.parsed.method);
          if (entry.expiresAt <= t) revalidate(did, routed);
          return net.answer;
        }
        return await fetchShared(routed);
      })().finally(() => lookups.delete(did));
      lookups.set(did, p);
    }
    return p;
  }

  /** Memo or fresh LRU entry, synchronously (the hot path awaits nothing on a hit). */
  function peek(did: string): DidAnswer | undefined {
    const m = memo.get(did);
    if (m !== undefined) return m;
    const n = lru.get(did);
    if (n !== undefined) {
      const t = now();
      if (n.expiresAt > t) {
        countDidCacheLookup(true, n.method);
        return n.answer;
      }
      if (n.staleUntil > t) {
        countDidCacheLookup(true, n.method);
        revalidate(did);
        return n.answer;
      }
      lru.delete(did);
    }
    return undefined;
  }

  async function resolveAnswer(did: string, opts: ResolveOptions = {}): Promise<DidAnswer> {
    const noCache = opts.noCache === true;
    if (!noCache && opts.version === undefined) {
      const hit = peek(did);
      if (hit !== undefined) return hit;
    }
    const routed = registry.route(did);
    if (!("parsed" in routed)) {
      return new DidAnswer(withServedFromCache(routed, false), { kind: "none" });
    }
    if (opts.version !== undefined) {
      const result = routed.versions
        ? await routed.resolve({ version: opts.version })
        : resolutionError(
          "notFound",
          `did:${routed.parsed.method} DIDs have no earlier versions, so ${
            Object.keys(opts.version).join(" and ")
          } names no document.`,
        );
      return new DidAnswer(withServedFromCache(result, false), { kind: "none" });
    }
    switch (routed.klass) {
      case "deterministic": {
        const result = withServedFromCache(await routed.resolve(), false);
        const ok = result.didResolutionMetadata.error === undefined;
        const answer = new DidAnswer(result, ok ? { kind: "immutable" } : { kind: "none" });
        if (ok) memo.set(did, answer);
        return answer;
      }
      case "local":
        return new DidAnswer(withServedFromCache(await routed.resolve(), false), { kind: "none" });
      case "network":
        return noCache ? await fetchShared(routed) : await lookupShared(routed);
    }
  }

  return {
    peek,
    resolveAnswer,
    async resolve(did, opts) {
      return (await resolveAnswer(did, opts)).result;
    },
    clearMemory() {
      memo.clear();
      lru.clear();
    },
  };
}

/** The method name of a DID (`did:web:…` → `web`), for metrics. */
function methodOf(did: string): string {
  const end = did.indexOf(":", 4);
  return end > 4 ? did.slice(4, end) : "unknown";
}
