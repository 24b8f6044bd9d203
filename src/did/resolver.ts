/**
 * The method registry: a Map from method name to `DidMethod`, an optional fallback for every other
 * method (the universal resolver), and the uncached resolve entry point. Caching lives in
 * `cache/cache.ts`, which wraps this.
 */
import type { FallbackResolver } from "./methods/universal.ts";
import { parseDidWithReason } from "./syntax.ts";
import {
  type DidClass,
  type DidMethod,
  type DidResolutionResult,
  type ParsedDid,
  resolutionError,
  type ResolveContext,
} from "./types.ts";
import { clip } from "../base/mod.ts";

/** A DID routed to the code that resolves it. */
export interface RoutedDid {
  parsed: ParsedDid;
  klass: DidClass;
  /** The method resolves earlier versions (`ResolveContext.version`). */
  versions: boolean;
  resolve(ctx?: ResolveContext): Promise<DidResolutionResult>;
}

/** Resolves DIDs without caching. */
export interface DidRegistry {
  /** The built-in methods by name. */
  readonly methods: ReadonlyMap<string, DidMethod>;
  /** Parses and routes `did`; a result with `error` when it cannot be resolved at all. */
  route(did: string): RoutedDid | DidResolutionResult;
  /** Parses, routes and resolves `did` (no cache). */
  resolve(did: string, ctx?: ResolveContext): Promise<DidResolutionResult>;
}

/** Options of `createRegistry`. */
export interface RegistryOptions {
  methods: DidMethod[];
  /** For methods not built in; without it they are `methodNotSupported`. */
  fallback?: FallbackResolver;
}

/** Builds the registry. A later method with the same name replaces an earlier one. */
export function createRegistry(options: RegistryOptions): DidRegistry {
  const methods = new Map<string, DidMethod>();
  for (const m of options.methods) methods.set(m.name, m);
  const fallback = options.fallback;

  function route(did: string): RoutedDid | DidResolutionResult {
    const parsed = parseDidWithReason(did);
    if (!parsed.ok) return resolutionError("invalidDid", `${parsed.message}.`);
    const p = parsed.value;
    if (p.path !== undefined || p.query !== undefined || p.fragment !== undefined) {
      return resolutionError(
        "invalidDid",
        `${clip(did)} is a DID URL; give the DID alone (${clip(p.did)}) to resolve it.`,
      );
    }
    const method = methods.get(p.method);
    if (method) {
      const deterministic = method.isDeterministicFor
        ? method.isDeterministicFor(p)
        : method.deterministic;
      const klass: DidClass = deterministic
        ? "deterministic"
        : method.deterministic
        ? "local"
        : "network";
      return {
        parsed: p,
        klass,
        versions: method.versions === true,
        resolve: (ctx = {}) => safeResolve(method, p, ctx),
      };
    }
    if (fallback) {
      return {
        parsed: p,
        klass: "network",
        versions: false,
        resolve: (ctx = {}) =>
          fallback(p, ctx).catch((err) =>
            resolutionError("internalError", `the fallback resolver failed: ${errorText(err)}`)
          ),
      };
    }
    return resolutionError(
      "methodNotSupported",
      `The DID method "${p.method}" is not supported; built in: ${[...methods.keys()].join(", ")}.`,
    );
  }

  return {
    methods,
    route,
    resolve(did, ctx) {
      const r = route(did);
      return "parsed" in r ? r.resolve(ctx) : Promise.resolve(r);
    },
  };
}

/** A driver must not throw, but if one does the caller still gets a result. */
async function safeResolve(
  method: DidMethod,
  parsed: ParsedDid,
  ctx: ResolveContext,
): Promise<DidResolutionResult> {
  try {
    return await method.resolve(parsed, ctx);
  } catch (err) {
    return resolutionError(
      "internalError",
      `the did:${method.name} driver failed: ${errorText(err)}`,
    );
  }
}

function errorText(err: unknown): string {
  return (err instanceof Error ? err.message : String(err)).split("\n")[0]!.slice(0, 200);
}
