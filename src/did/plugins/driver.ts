/**
 * The adapter that makes a DIF `did-resolver` driver (the `{method: resolve}` map of its
 * `getResolver()`) a method of this service (CONTRACT.md "DID method plug-ins"). The driver is not
 * trusted to behave:
 *
 * - it is loaded on first use (a loader's `import()` keeps its code out of the start-up), and a
 *   loader that fails is tried again on the next call;
 * - every call is raced against the plug-in's timeout (drivers ignore abort signals); a throw, a
 *   rejection, a hang or an answer that is not a resolution result is `internalError` naming the
 *   method; a thrown "invalid did" is `invalidDid`;
 * - its error spellings map to the DID Core keywords (`notFound`, `NotFound!` → `notFound`;
 *   `unknownNetwork`, `unsupportedDidMethod` → `methodNotSupported` naming the networks served;
 *   `unsupportedFormat` → `representationNotSupported`; any other → `internalError`);
 * - an error answered while the plug-in's RPC transport failed (connection refused, timeout, a
 *   node error) is `internalError` whatever keyword the driver chose (ethr-did-resolver reports an
 *   unreachable node as `notFound`); the cache never keeps an `internalError`;
 * - the document is the driver's `application/did+ld+json` answer, copied as JSON and otherwise
 *   unchanged; a document for another DID is refused;
 * - DID parameters `versionId` / `versionTime` reach the driver as the DID URL query (the
 *   `did-resolver` convention), `versionTime` first turned into a `versionId` when the plug-in
 *   says how (ethr-did-resolver reads only `versionId`).
 *
 * @module
 */
import { asResult, Failure, race, thrown, TIMED_OUT, timedOut } from "./driver_answer.ts";
import { parseDidWithReason } from "../syntax.ts";
import { readVersion } from "../version.ts";
import {
  DID_LD_JSON,
  type DidDocument,
  type DidMethod,
  type DidResolutionErrorCode,
  type DidResolutionResult,
  type DidTraits,
  type DidVersion,
  type ParsedDid,
  resolutionError,
  type ResolveContext,
  type Result,
} from "../types.ts";
import { AsyncLocalStorage } from "node:async_hooks";
import { lazy } from "../../base/mod.ts";

/** The parsed DID URL a driver is given (`did-resolver`'s `ParsedDID`). */
export interface DriverParsedDid {
  did: string;
  didUrl: string;
  method: string;
  id: string;
  query?: string;
}

/** The resolver a driver is given, for other DIDs (`did-resolver`'s `Resolvable`). */
export interface DriverResolvable {
  resolve(didUrl: string): Promise<DidResolutionResult>;
}

/**
 * One method of a driver's `getResolver()` map, as `did-resolver` calls it:
 * `(did, parsed, resolver, options)`. Typed loosely: drivers are written against several
 * `did-resolver` versions, and nothing a driver answers is trusted anyway.
 */
// deno-lint-ignore no-explicit-any
export type DriverFunction = (...args: any[]) => Promise<unknown>;

/** A driver's `getResolver()` result: method name → resolve function. */
export type DriverMap = Record<string, DriverFunction>;

/**
 * Where a plug-in's RPC transport reports a failed call (no connection, timeout, HTTP error,
 * JSON-RPC error), so that an outage is told apart from a driver's answer. A report belongs to the
 * driver call it was made for: each call of the adapter runs in a context of its own, so one
 * call's failure never changes another's answer (see {@link transportReporter}).
 */
export interface TransportHealth {
  /** Reports a failure of the call under way, in words (never the URL: it may carry a key). */
  failed(why: string): void;
}

/** The transport failures of one driver call. */
interface CallTransport {
  failure?: string;
}

/** The driver call under way (its context follows the call's awaits, whoever else runs). */
const callTransport = new AsyncLocalStorage<CallTransport>();

/** The reporter of a plug-in's transport: a failure goes to the driver call under way. */
export function transportReporter(): TransportHealth {
  return {
    failed(why) {
      const call = callTransport.getStore();
      if (call) call.failure ??= why;
    },
  };
}

/** A loaded driver and what the plug-in knows about it once loaded. */
export interface LoadedDriver {
  resolver: DriverMap;
  /**
   * The `versionId` to ask the driver for, for a `versionTime` (an RFC 3339 date-time, already
   * checked); a failure is `notFound` (no version at that time) or `internalError`.
   */
  versionIdAt?(
    parsed: ParsedDid,
    time: Date,
  ): Promise<Result<string> & { error?: DidResolutionErrorCode }>;
}

/** One entry of `plugins.ts`: a driver and how its answers may be kept. */
export interface DriverPlugin {
  /** The method names it serves (its map's keys), known before it is loaded. */
  methods: readonly string[];
  /**
   * `deterministic`: an answer is a pure function of the DID (kept like did:key); `network`: read
   * from elsewhere (cached with the TTL and stale-while-revalidate of network methods).
   */
  kind: "deterministic" | "network";
  /** The driver's `getResolver()` map, or a loader of it (called once, on first use). */
  driver: DriverMap | (() => LoadedDriver | DriverMap | Promise<LoadedDriver | DriverMap>);
  /** Longest a call may take, ms; default `DID_DRIVER_TIMEOUT_MS`. */
  timeoutMs?: number;
  /** The driver resolves earlier versions (`versionId` / `versionTime` in the query). */
  versions?: boolean;
  /** What `GET /1.0/traits` says of its methods; absent: nothing (`{}`). */
  traits?: DidTraits;
  /**
   * Its `application/did+json` answer: the `did+ld+json` document without `@context` (what
   * `did-resolver` drivers such as ethr-did-resolver and pkh-did-resolver answer), or `same` for a
   * driver that answers one document whatever is asked. Default `without-context`.
   */
  didJson?: "without-context" | "same";
  /**
   * The networks this instance serves, and how to read a DID's network: a DID of another network
   * is `methodNotSupported` before the driver is called (so a driver's built-in network is never
   * reached).
   */
  networks?: { served: readonly string[]; of(parsed: ParsedDid): string | undefined };
  /** Its RPC transport's reporter ({@link transportReporter}), when the plug-in built the transport. */
  transport?: TransportHealth;
}

/** Options of `driverMethods`. */
export interface DriverOptions {
  /** `DID_DRIVER_TIMEOUT_MS`: a plug-in's timeout when it names none. */
  timeoutMs: number;
}

/** Longest a driver's loader may take (its module imports), ms. */
const LOAD_TIMEOUT_MS = 30_000;
/** How deep drivers may resolve other DIDs through the resolver handed to them. */
const MAX_DEPTH = 3;

/** The methods of every plug-in, each a `DidMethod` of the registry. */
export function driverMethods(
  plugins: readonly DriverPlugin[],
  options: DriverOptions,
): DidMethod[] {
  const byName = new Map<string, PluginMethod>();
  const resolvable = (depth: number): DriverResolvable => ({
    resolve: async (didUrl) => {
      const method = /^did:([a-z0-9]+):/.exec(didUrl)?.[1];
      const target = method === undefined ? undefined : byName.get(method);
      if (target === undefined || depth >= MAX_DEPTH) {
        return resolutionError(
          "methodNotSupported",
          depth >= MAX_DEPTH
            ? "drivers may not resolve DIDs deeper than 3 levels"
            : `plug-in drivers resolve only ${[...byName.keys()].join(", ")}`,
        );
      }
      return await target.resolveUrl(didUrl, depth + 1);
    },
  });
  for (const plugin of plugins) {
    const load = loader(plugin);
    for (const name of plugin.methods) {
      const m = new PluginMethod(
        name,
        plugin,
        load,
        plugin.timeoutMs ?? options.timeoutMs,
        resolvable,
      );
      byName.set(name, m);
    }
  }
  return [...byName.values()];
}

/** Loads a plug-in's driver on first use (the one lazy loader: a failed load is tried again). */
function loader(plugin: DriverPlugin): () => Promise<LoadedDriver> {
  return lazy(async () => {
    const d = plugin.driver;
    const got = typeof d === "function" ? await d() : d;
    return isLoaded(got) ? got : { resolver: got };
  });
}

/** A `LoadedDriver` has a `resolver` map; in a bare map every member is a function. */
function isLoaded(v: LoadedDriver | DriverMap): v is LoadedDriver {
  const r = (v as { resolver?: unknown }).resolver;
  return typeof r === "object" && r !== null;
}

class PluginMethod implements DidMethod {
  readonly deterministic: boolean;
  readonly versions: boolean;
  readonly traits?: DidTraits;
  readonly properties: Readonly<Record<string, unknown>>;
  readonly jsonDocument?: (doc: DidDocument) => DidDocument;

  constructor(
    readonly name: string,
    private readonly plugin: DriverPlugin,
    private readonly load: () => Promise<LoadedDriver>,
    private readonly timeoutMs: number,
    private readonly resolvable: (depth: number) => DriverResolvable,
  ) {
    this.deterministic = plugin.kind === "deterministic";
    this.versions = plugin.versions === true;
    if (plugin.traits !== undefined) this.traits = plugin.traits;
    if (plugin.didJson !== "same") {
      this.jsonDocument = ({ "@context": _, ...doc }: DidDocument) => doc;
    }
    this.properties = {
      driver: "did-resolver",
      kind: plugin.kind,
      timeoutMs,
      versions: this.versions,
      ...(plugin.networks ? { networks: [...plugin.networks.served] } : {}),
    };
  }

  resolve(parsed: ParsedDid, ctx: ResolveContext): Promise<DidResolutionResult> {
    return this.resolveAt(parsed, ctx.version, 0);
  }

  /** A DID URL handed to the resolver the driver was given (another driver resolving a DID). */
  resolveUrl(didUrl: string, depth: number): Promise<DidResolutionResult> {
    const parsed = parseDidWithReason(String(didUrl));
    if (!parsed.ok) return Promise.resolve(resolutionError("invalidDid", `${parsed.message}.`));
    const version: DidVersion = {};
    for (const [k, v] of new URLSearchParams(parsed.value.query ?? "")) {
      if (k === "versionId" || k === "versionTime") version[k] = v;
    }
    const p = parsed.value;
    const did = { did: p.did, method: p.method, id: p.id, didUrl: p.did };
    return this.resolveAt(did, Object.keys(version).length ? version : undefined, depth);
  }

  private async resolveAt(
    parsed: ParsedDid,
    version: DidVersion | undefined,
    depth: number,
  ): Promise<DidResolutionResult> {
    const method = `did:${this.name}`;
    const networks = this.plugin.networks;
    if (networks !== undefined) {
      const net = networks.of(parsed);
      if (net !== undefined && !networks.served.includes(net)) {
        return unserved(method, net, networks);
      }
    }
    // Loading (the first call's import of the driver's code) has a bound of its own: a slow
    // start-up of a busy machine is not the driver's answer taking long.
    const loaded = await race(this.load(), LOAD_TIMEOUT_MS);
    if (loaded === TIMED_OUT) {
      return resolutionError(
        "internalError",
        `the ${method} driver did not load within ${LOAD_TIMEOUT_MS} ms`,
      );
    }
    if (loaded instanceof Failure) {
      return resolutionError(
        "internalError",
        `the ${method} driver could not be loaded: ${loaded.text}`,
      );
    }
    const fn = loaded.resolver[this.name];
    if (typeof fn !== "function") {
      return resolutionError(
        "internalError",
        `the ${method} driver has no "${this.name}" resolver`,
      );
    }
    const deadline = Date.now() + this.timeoutMs;
    const call: CallTransport = {};
    const outcome = await callTransport.run(
      call,
      () => this.call(fn, loaded, parsed, version, depth, deadline),
    );
    const result = outcome instanceof Failure ? thrown(method, outcome) : outcome;
    const error = result.didResolutionMetadata.error;
    if (error !== undefined && error !== "internalError" && call.failure !== undefined) {
      return resolutionError(
        "internalError",
        `the ${method} driver could not reach its chain node (${call.failure})`,
      );
    }
    if (error === "methodNotSupported" && networks !== undefined) {
      return unserved(method, networks.of(parsed), networks);
    }
    return result;
  }

  /** Builds the driver's arguments and calls it under the deadline; its answer as ours. */
  private async call(
    fn: DriverFunction,
    loaded: LoadedDriver,
    parsed: ParsedDid,
    version: DidVersion | undefined,
    depth: number,
    deadline: number,
  ): Promise<DidResolutionResult | Failure> {
    const method = `did:${this.name}`;
    let query: string | undefined;
    if (version !== undefined) {
      const params = new URLSearchParams();
      if (version.versionId !== undefined) params.set("versionId", version.versionId);
      else if (version.versionTime !== undefined) {
        const read = readVersion({ versionTime: version.versionTime });
        if (typeof read === "string") return resolutionError("invalidDidUrl", read);
        const time = read.versionTime!;
        if (loaded.versionIdAt === undefined) params.set("versionTime", version.versionTime);
        else {
          const at = await race(loaded.versionIdAt(parsed, time), deadline - Date.now());
          if (at === TIMED_OUT) return timedOut(method, this.timeoutMs);
          if (at instanceof Failure) return at;
          if (!at.ok) return resolutionError(at.error ?? "notFound", at.message);
          params.set("versionId", at.value);
        }
      }
      if (version.versionNumber !== undefined) {
        return resolutionError("notFound", `${method} DIDs have no versionNumber; use versionId`);
      }
      query = params.toString();
    }
    const didUrl = query === undefined ? parsed.did : `${parsed.did}?${query}`;
    let args: DriverParsedDid = { did: parsed.did, method: parsed.method, id: parsed.id, didUrl };
    if (query !== undefined) args.query = query;
    const parser = (fn as { parser?: (p: DriverParsedDid) => unknown }).parser;
    if (typeof parser === "function") {
      let refined: unknown;
      try {
        refined = parser(args);
      } catch (err) {
        return new Failure(err);
      }
      if (typeof refined !== "object" || refined === null) {
        return resolutionError("invalidDid", `${parsed.did} is not a valid ${method} DID`);
      }
      args = refined as unknown as DriverParsedDid;
    }
    const raw = await race(
      Promise.resolve().then(() =>
        fn(parsed.did, args, this.resolvable(depth), { accept: DID_LD_JSON })
      ),
      deadline - Date.now(),
    );
    if (raw === TIMED_OUT) return timedOut(method, this.timeoutMs);
    if (raw instanceof Failure) return raw;
    return asResult(raw, parsed, method);
  }
}

function unserved(
  method: string,
  network: string | undefined,
  networks: NonNullable<DriverPlugin["networks"]>,
): DidResolutionResult {
  const served = networks.served.length ? networks.served.join(", ") : "none";
  return resolutionError(
    "methodNotSupported",
    `${method} network ${
      JSON.stringify(network ?? "")
    } is not served here; networks served: ${served}`,
  );
}
