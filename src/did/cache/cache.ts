/**
 * The DID cache: a policy over two stores, around the method registry; it answers resolutions
 * (results and their freshness), never HTTP. Memory (the one bounded map, `Lru`: resolutions ready
 * to serve, read synchronously) sits in front of a durable `DidCacheStore` shared by every process
 * (`kvCacheStore`: Deno KV, read with eventual consistency: an edge instance reads its replica).
 *
 * - Deterministic results (did:key, did:jwk, did:peer 0/2/4 long) are memoized: never stale, and
 *   not "the cache" of the contract (`servedFromCache` stays false for them).
 * - Network results (did:web, did:webvh, the universal resolver) are stored as `{result, cachedAt,
 *   expiresAt}` for `DID_CACHE_TTL_SECONDS` (`notFound` at most 30 s; failures never); a hit says
 *   `servedFromCache: true`; a store read failure is a miss.
 * - Stale-while-revalidate: a successful network answer up to `maxStaleSeconds` past its expiry is
 *   served at once and refreshed in the background, one refresh per DID at a time; a failed
 *   refresh keeps the old entry and waits `NOT_FOUND_TTL_SECONDS`; past the max stale age the DID
 *   is fetched as on a miss. `notFound` answers are never served stale.
 * - `noCache` skips both stores and stores the fresh answer (bypass and refresh).
 * - Coalescing: concurrent misses for one DID share one lookup; upstream fetches are single-flight.
 * - Versions (`versionId`, `versionTime`, `versionNumber` as DID parameters) of a method with
 *   versions are cached like the DID, each under its full DID URL (`cacheKey`:
 *   `did:ethr:…?versionId=9`); a method without versions answers `notFound`, uncached.
 *
 * @module
 */
import { log, Lru } from "../../base/mod.ts";
import { countDidCacheLookup } from "../../telemetry/mod.ts";
import type { DidCacheEntry, DidCacheStore } from "./store.ts";
export { type DidCacheEntry, type DidCacheStore, kvCacheStore } from "./store.ts";
import type { DidRegistry, RoutedDid } from "../resolver.ts";
import {
  deepFreeze,
  type DidResolutionResult,
  type DidVersion,
  type Resolution,
  resolutionError,
  withServedFromCache,
} from "../types.ts";

/** Longest a `notFound` answer is cached. */
export const NOT_FOUND_TTL_SECONDS = 30;
/** Extra store lifetime past the max stale age before garbage collection. */
const GC_SLACK_MS = 60_000;
/**
 * Default byte bounds of the memory stores, counted as the results' JSON. A did:key answer is about
 * 1.6 KB of JSON and costs about 35 µs to make again; a network answer a store read or a fetch.
 */
export const DEFAULT_MEMO_BYTES = 4 * 1024 * 1024;
export const DEFAULT_LRU_BYTES = 8 * 1024 * 1024;
/** An entry's own objects besides its result, for the byte bounds. */
const ENTRY_BYTES = 160;
/** Options of `createCachingResolver`. */
export interface CacheOptions {
  /** The durable store of network results. */
  store: DidCacheStore;
  /** Freshness of network results in seconds (0 disables storing them). */
  ttlSeconds: number;
  /** How long past its TTL a successful network answer may be served while refreshed; default 0. */
  maxStaleSeconds?: number;
  /** Clock, ms since epoch. */
  now: () => number;
  /** Entry bound of the deterministic memo. Default 100 000. */
  memoSize?: number;
  /** Byte bound of the deterministic memo. Default 4 MiB. */
  memoBytes?: number;
  /** Entry bound of the network memory store. Default 50 000. */
  lruSize?: number;
  /** Byte bound of the network memory store. Default 8 MiB. */
  lruBytes?: number;
}

/** Per-call options. */
export interface ResolveOptions {
  /** Bypass the stores and refresh them (`?noCache=true`, `Cache-Control: no-cache`). */
  noCache?: boolean;
  /** A version of the document (DID parameters): resolved by the method, cached under its own key (`cacheKey`). */
  version?: DidVersion;
}

/** The resolver with caching. */
export interface CachingResolver {
  /**
   * The memoized or cached resolution of `did` if memory holds a servable one, else undefined; no
   * I/O (a stale entry served here is refreshed in the background). The same object while held.
   */
  peek(did: string): Resolution | undefined;
  /** The resolution of `did` through the stores. */
  lookup(did: string, options?: ResolveOptions): Promise<Resolution>;
  /** The W3C resolution result (frozen; copy before changing it). */
  resolve(did: string, options?: ResolveOptions): Promise<DidResolutionResult>;
  /** Empties the memory stores (not the durable one). */
  clearMemory(): void;
}

/** A network resolution held in memory, with its times. */
interface Held {
  resolution: Resolution;
  expiresAt: number;
  /** Served (stale) and refreshed in the background until then. */
  staleUntil: number;
  /** The DID method, for the hit counter (no slicing on the hot path). */
  method: string;
  weight: number;
}

const NONE = { kind: "none" } as const;
const IMMUTABLE = { kind: "immutable" } as const;

/** Wraps `registry` with the memo, the memory store, the durable store and single-flight. */
export function createCachingResolver(
  registry: DidRegistry,
  options: CacheOptions,
): CachingResolver {
  const { store, now } = options;
  const ttlMs = options.ttlSeconds * 1000;
  const maxStaleMs = (options.maxStaleSeconds ?? 0) * 1000;
  const memo = new Lru<Resolution>(options.memoSize ?? 100_000, {
    maxWeight: options.memoBytes ?? DEFAULT_MEMO_BYTES,
    weigh: (r) => jsonSize(r.result) + ENTRY_BYTES,
  });
  const held = new Lru<Held>(options.lruSize ?? 50_000, {
    maxWeight: options.lruBytes ?? DEFAULT_LRU_BYTES,
    weigh: (h) => h.weight,
  });
  const lookups = new Map<string, Promise<Resolution>>();
  const fetches = new Map<string, Promise<Resolution>>();
  /** DIDs being refreshed in the background, and DIDs whose last refresh failed (retry time). */
  const refreshing = new Set<string>();
  const retryAt = new Lru<number>(options.lruSize ?? 50_000);

  /** Until when `entry` may be served: past its TTL only for successful answers. */
  function staleUntilOf(entry: DidCacheEntry): number {
    return entry.result.didResolutionMetadata.error === undefined
      ? entry.expiresAt + maxStaleMs
      : entry.expiresAt;
  }

  /** Keeps a stored entry in memory as a resolution ready to serve. */
  function hold(did: string, entry: DidCacheEntry): Held {
    const h: Held = {
      resolution: {
        result: withServedFromCache(entry.result, true),
        freshness: { kind: "until", expiresAt: entry.expiresAt },
        source: "network",
      },
      expiresAt: entry.expiresAt,
      staleUntil: staleUntilOf(entry),
      method: methodOf(did),
      weight: jsonSize(entry.result) + ENTRY_BYTES,
    };
    held.set(did, h);
    return h;
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
    const r = routed ?? routeKey(did);
    if (r === undefined) return;
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
        await keep(did, result, now());
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

  /** Stores a network result in both stores when it may be cached; its expiry, else undefined. */
  async function keep(
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
    hold(did, entry);
    try {
      await store.set(did, entry, staleUntilOf(entry) - t + GC_SLACK_MS);
    } catch (err) {
      log("warn", "did cache write failed", { did, error: err });
    }
    return entry.expiresAt;
  }

  /** One upstream resolution per cache key at a time; stores the result. */
  function fetchShared(routed: RoutedDid, did: string): Promise<Resolution> {
    let p = fetches.get(did);
    if (!p) {
      p = (async (): Promise<Resolution> => {
        countDidCacheLookup(false, routed.parsed.method);
        const result = await routed.resolve();
        const expiresAt = await keep(did, result, now());
        return {
          result: withServedFromCache(result, false),
          freshness: expiresAt === undefined ? NONE : { kind: "until", expiresAt },
          source: "network",
        };
      })().finally(() => fetches.delete(did));
      fetches.set(did, p);
    }
    return p;
  }

  async function readStore(did: string): Promise<DidCacheEntry | undefined> {
    try {
      return await store.get(did);
    } catch (err) {
      log("warn", "did cache read failed; treating it as a miss", { did, error: err });
      return undefined;
    }
  }

  /** Miss path of a network DID: the durable store, then upstream; shared by concurrent callers. */
  function lookupShared(routed: RoutedDid, did: string): Promise<Resolution> {
    let p = lookups.get(did);
    if (!p) {
      p = (async () => {
        const entry = await readStore(did);
        const t = now();
        if (entry && staleUntilOf(entry) > t) {
          const h = hold(did, entry);
          countDidCacheLookup(true, routed.parsed.method);
          if (entry.expiresAt <= t) revalidate(did, routed);
          return h.resolution;
        }
        return await fetchShared(routed, did);
      })().finally(() => lookups.delete(did));
      lookups.set(did, p);
    }
    return p;
  }

  /** Memo or servable memory entry, synchronously (the hot path awaits nothing on a hit). */
  function peek(did: string): Resolution | undefined {
    const m = memo.get(did);
    if (m !== undefined) return m;
    const h = held.get(did);
    if (h !== undefined) {
      const t = now();
      if (h.expiresAt > t) {
        countDidCacheLookup(true, h.method);
        return h.resolution;
      }
      if (h.staleUntil > t) {
        countDidCacheLookup(true, h.method);
        revalidate(did);
        return h.resolution;
      }
      held.delete(did);
    }
    return undefined;
  }

  /**
   * The DID (or DID URL with version parameters) a cache key names, routed; a versioned key's
   * route hands its version to the method.
   */
  function routeKey(key: string): RoutedDid | undefined {
    const q = key.indexOf("?");
    const r = registry.route(q < 0 ? key : key.slice(0, q));
    if (!("parsed" in r)) return undefined;
    if (q < 0) return r;
    const version: DidVersion = {};
    for (const [name, value] of new URLSearchParams(key.slice(q + 1))) {
      version[name as keyof DidVersion] = value;
    }
    return atVersion(r, version);
  }

  async function lookup(did: string, opts: ResolveOptions = {}): Promise<Resolution> {
    const noCache = opts.noCache === true;
    const key = opts.version === undefined ? did : cacheKey(did, opts.version);
    if (!noCache) {
      const hit = peek(key);
      if (hit !== undefined) return hit;
    }
    let routed = registry.route(did);
    if (!("parsed" in routed)) {
      return { result: withServedFromCache(routed, false), freshness: NONE, source: "local" };
    }
    if (opts.version !== undefined) {
      if (!routed.versions) {
        const result = resolutionError(
          "notFound",
          `did:${routed.parsed.method} DIDs have no earlier versions, so ${
            Object.keys(opts.version).join(" and ")
          } names no document.`,
        );
        return {
          result: withServedFromCache(result, false),
          freshness: NONE,
          source: routed.klass,
        };
      }
      routed = atVersion(routed, opts.version);
    }
    switch (routed.klass) {
      case "deterministic": {
        const result = withServedFromCache(await routed.resolve(), false);
        if (result.didResolutionMetadata.error !== undefined) {
          return { result, freshness: NONE, source: "deterministic" };
        }
        const r: Resolution = { result, freshness: IMMUTABLE, source: "deterministic" };
        memo.set(key, r);
        return r;
      }
      case "local":
        return {
          result: withServedFromCache(await routed.resolve(), false),
          freshness: NONE,
          source: "local",
        };
      case "network":
        return noCache ? await fetchShared(routed, key) : await lookupShared(routed, key);
    }
  }

  return {
    peek,
    lookup,
    async resolve(did, opts) {
      return deepFreeze((await lookup(did, opts)).result);
    },
    clearMemory() {
      memo.clear();
      held.clear();
    },
  };
}

/**
 * The cache key of a version of a DID: the DID URL with its version parameters in one order
 * (`did:ethr:…?versionId=9`), so that each version is cached on its own under the full DID URL.
 */
export function cacheKey(did: string, version: DidVersion): string {
  const params = new URLSearchParams();
  for (const name of ["versionId", "versionTime", "versionNumber"] as const) {
    const value = version[name];
    if (value !== undefined) params.set(name, value);
  }
  return `${did}?${params}`;
}

/** `routed`, resolving the given version (handed to the method as `ResolveContext.version`). */
function atVersion(routed: RoutedDid, version: DidVersion): RoutedDid {
  return { ...routed, resolve: (ctx = {}) => routed.resolve({ ...ctx, version }) };
}

/** Length of a result's JSON: what the memory bounds count. */
function jsonSize(result: DidResolutionResult): number {
  return JSON.stringify(result).length;
}

/** The method name of a DID (`did:web:…` → `web`), for metrics. */
function methodOf(did: string): string {
  const end = did.indexOf(":", 4);
  return end > 4 ? did.slice(4, end) : "unknown";
}
