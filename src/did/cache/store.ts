/**
 * The durable store of the DID cache (`cache.ts` is the policy over it): what it keeps for a DID or
 * a versioned DID URL, and its Deno KV implementation under `keys.didCache(key)`.
 *
 * @module
 */
import { KV_DATA_MAX } from "../../base/mod.ts";
import { keys } from "../../kv/mod.ts";
import type { DidResolutionResult } from "../types.ts";

/**
 * What a durable store keeps for a cache key (the KV value under `keys.didCache(key)`): the DID, or
 * for a version the DID URL with its version parameters (`cacheKey` in cache.ts).
 */
export interface DidCacheEntry {
  result: DidResolutionResult;
  cachedAt: number;
  expiresAt: number;
}

/** The durable store of network results, shared by every process of the service. */
export interface DidCacheStore {
  /** The entry for `key`, if any (its freshness is the policy's to judge). */
  get(key: string): Promise<DidCacheEntry | undefined>;
  /** Keeps `entry`; it may be dropped `keepMs` from now. */
  set(key: string, entry: DidCacheEntry, keepMs: number): Promise<void>;
}

/**
 * The store on Deno KV. Reads are eventual: on Deno Deploy an instance far from the primary reads
 * its nearby replica (a few ms instead of a round trip to the primary region), and a cached
 * resolution a little older is what its TTL allows anyway. Records that decide what a request may
 * do are read strongly elsewhere (CONTRACT "DID resolution"; tests/did/kv_reads_test.ts).
 */
export function kvCacheStore(kv: Deno.Kv): DidCacheStore {
  return {
    async get(key) {
      const got = await kv.get<DidCacheEntry>(keys.didCache(key), { consistency: "eventual" });
      return isEntry(got.value) ? got.value : undefined;
    },
    async set(key, entry, keepMs) {
      if (JSON.stringify(entry).length > KV_DATA_MAX) return;
      await kv.set(keys.didCache(key), entry, { expireIn: keepMs });
    },
  };
}

function isEntry(v: unknown): v is DidCacheEntry {
  if (typeof v !== "object" || v === null) return false;
  const e = v as Partial<DidCacheEntry>;
  return typeof e.cachedAt === "number" && typeof e.expiresAt === "number" &&
    typeof e.result === "object" && e.result !== null &&
    typeof e.result.didResolutionMetadata === "object";
}
