/**
 * Builds the service's DID resolver: the method registry wrapped in the cache. One resolver is
 * made by the composition (`src/compose.ts`) and handed to every feature that resolves DIDs, so
 * its memo, LRU and single-flight are shared with `GET /dids/{did}`.
 *
 * @module
 */
import type { Config } from "../config/mod.ts";
import { createSafeFetch, type SafeFetch } from "../outbound/mod.ts";
import { type CachingResolver, createCachingResolver, kvCacheStore } from "./cache/cache.ts";
import { jwkMethod } from "./methods/jwk.ts";
import { keyMethod } from "./methods/key.ts";
import { driverMethods } from "./plugins/driver.ts";
import { createPeerMethod } from "./methods/peer.ts";
import { createPlcMethod } from "./methods/plc.ts";
import { pluginDrivers } from "./plugins/plugins.ts";
import { createUniversalResolver } from "./methods/universal.ts";
import { createWebMethod } from "./methods/web.ts";
import { createWebvhMethod } from "./methods/webvh.ts";
import { KvPeerLongFormStore } from "./methods/peer/long_form_kv.ts";
import { createRegistry, type DidRegistry } from "./resolver.ts";
import type { DidDocument, DidMethod } from "./types.ts";

/** What the resolver is built from. */
export interface DidResolverDeps {
  config: Pick<
    Config,
    | "outbound"
    | "didCacheTtlSeconds"
    | "didCacheMaxStaleSeconds"
    | "universalResolverUrl"
    | "didPlcDirectoryUrl"
    | "didEthrNetworks"
    | "didPolygonNetworks"
    | "didDriverTimeoutMs"
  >;
  kv: Deno.Kv;
  safeFetch: SafeFetch;
  /**
   * The outbound client for hosts the operator configured (the plug-ins' chain RPC URLs): no
   * private-address policy. Default: one made here.
   */
  operatorFetch?: SafeFetch;
  now: () => number;
}

/** Tuning, mostly for tests and benchmarks. */
export interface DidResolverOptions {
  /** did:web fetch timeout (ms), default 5000. */
  webTimeoutMs?: number;
  /** did:web body cap (bytes), default 256 KiB. */
  webMaxBytes?: number;
  /** Entry bound of the deterministic memo, default 100 000. */
  memoSize?: number;
  /** Byte bound of the deterministic memo, default 4 MiB. */
  memoBytes?: number;
  /** Entry bound of the network LRU, default 50 000. */
  lruSize?: number;
  /** Byte bound of the network LRU, default 8 MiB. */
  lruBytes?: number;
  /** Extra or replacement methods (by name). */
  methods?: DidMethod[];
}

/** A caching DID resolver plus its method registry. */
export interface DidResolver extends CachingResolver {
  /** The uncached registry (methods by name, routing). */
  readonly registry: DidRegistry;
  /**
   * The `application/did+json` form of a document (its id's method's `jsonDocument`), when that
   * method writes one; undefined: the document as resolved.
   */
  jsonDocument(doc: DidDocument): DidDocument | undefined;
}

/**
 * Builds a resolver: did:key, did:jwk, did:peer (0, 2, 4; long forms remembered in KV), did:web
 * and did:webvh (https unless `OUTBOUND_REQUIRE_HTTPS=false`), did:plc (from the verified log of
 * `DID_PLC_DIRECTORY_URL`), the plug-in drivers of `plugins/plugins.ts` (did:pkh; did:ethr and
 * did:polygon when configured), and the universal resolver for other methods when
 * `UNIVERSAL_RESOLVER_URL` is set.
 */
export function createDidResolver(
  deps: DidResolverDeps,
  options: DidResolverOptions = {},
): DidResolver {
  const methods: DidMethod[] = [
    keyMethod,
    jwkMethod,
    createPeerMethod({ store: new KvPeerLongFormStore(deps.kv) }),
    createWebMethod({
      safeFetch: deps.safeFetch,
      useHttp: !deps.config.outbound.requireHttps,
      timeoutMs: options.webTimeoutMs,
      maxBytes: options.webMaxBytes,
    }),
    createWebvhMethod({
      safeFetch: deps.safeFetch,
      useHttp: !deps.config.outbound.requireHttps,
      timeoutMs: options.webTimeoutMs,
      maxBytes: options.webMaxBytes,
    }),
    createPlcMethod({
      safeFetch: deps.safeFetch,
      directoryUrl: deps.config.didPlcDirectoryUrl,
      timeoutMs: options.webTimeoutMs,
    }),
    ...driverMethods(
      pluginDrivers({
        config: deps.config,
        operatorFetch: deps.operatorFetch ??
          createSafeFetch({ allowPrivate: true, requireHttps: false }),
      }),
      { timeoutMs: deps.config.didDriverTimeoutMs },
    ),
    ...(options.methods ?? []),
  ];
  const url = deps.config.universalResolverUrl;
  const registry = createRegistry({
    methods,
    fallback: url
      ? createUniversalResolver({ baseUrl: url, safeFetch: deps.safeFetch })
      : undefined,
  });
  const cached = createCachingResolver(registry, {
    store: kvCacheStore(deps.kv),
    ttlSeconds: deps.config.didCacheTtlSeconds,
    maxStaleSeconds: deps.config.didCacheMaxStaleSeconds,
    now: deps.now,
    memoSize: options.memoSize,
    lruSize: options.lruSize,
    memoBytes: options.memoBytes,
    lruBytes: options.lruBytes,
  });
  return {
    ...cached,
    registry,
    jsonDocument(doc) {
      const method = /^did:([a-z0-9]+):/.exec(doc.id)?.[1];
      return method === undefined ? undefined : registry.methods.get(method)?.jsonDocument?.(doc);
    },
  };
}
