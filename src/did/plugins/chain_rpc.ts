/**
 * What the chain plug-ins (did:ethr) share: an ethers 6 JSON-RPC provider whose requests go
 * through the service's outbound client and report their failures to the driver call they belong
 * to (so that the driver adapter can tell a node outage from a driver's answer), and the search
 * for the last block at or before a time (`versionTime`). Types only from ethers here: the plug-in's loader imports ethers itself, on
 * first use.
 *
 * Chain RPC URLs are operator configuration: the client they go through allows private and plain
 * http addresses (CONTRACT.md "DID method plug-ins"), and a DID never names where it is resolved.
 *
 * @module
 */
import type { FetchCancelSignal, FetchRequest, GetUrlResponse, JsonRpcProvider } from "ethers";
import type { SafeFetch } from "../../outbound/mod.ts";
import { fail, ok, type Result } from "../types.ts";
import type { TransportHealth } from "./driver.ts";

/** A JSON-RPC answer is at most this large (an `eth_getLogs` of a busy DID can be long). */
const MAX_RPC_BYTES = 16 * 1024 * 1024;
const decoder = new TextDecoder();

/** What `rpcProvider` needs of the `ethers` module (the loader passes the imported module). */
export interface EthersModule {
  FetchRequest: typeof FetchRequest;
  JsonRpcProvider: typeof JsonRpcProvider;
  Network: typeof import("ethers").Network;
}

/** A call to the chain node that failed: no answer, an HTTP error or a JSON-RPC error. */
export class RpcFailure extends Error {
  override readonly name = "RpcFailure";
}

/**
 * A provider for `rpcUrl` on `chainId` (static: no network detection, no retry loop), one request
 * per HTTP call (no batching, so a failure belongs to one request), no response cache, no
 * throttling retries; every call through `fetch` under `timeoutMs`. A failed request rejects the
 * `send` that made it with an {@link RpcFailure}, which is reported to `transport` in the context
 * of that `send`'s caller (the driver call it belongs to; ethers sends the queued requests of
 * concurrent calls from one timer, so the request itself cannot tell whose it is).
 */
export function rpcProvider(
  ethers: EthersModule,
  rpcUrl: string,
  chainId: bigint,
  options: { fetch: SafeFetch; transport: TransportHealth; timeoutMs: number },
): JsonRpcProvider {
  const req = new ethers.FetchRequest(rpcUrl);
  req.timeout = options.timeoutMs;
  req.setThrottleParams({ maxAttempts: 1 });
  req.getUrlFunc = rpcGetUrl(options.fetch, options.timeoutMs);
  const provider = new ethers.JsonRpcProvider(req, ethers.Network.from(chainId), {
    staticNetwork: true,
    batchMaxCount: 1,
    cacheTimeout: -1,
    polling: false,
  });
  const send = provider.send.bind(provider);
  provider.send = (method, params) =>
    send(method, params).catch((err: unknown) => {
      if (err instanceof RpcFailure) options.transport.failed(err.message);
      throw err;
    });
  return provider;
}

/** ethers' `getUrlFunc` over the outbound client; throws an {@link RpcFailure} for a failed call. */
export function rpcGetUrl(
  fetch: SafeFetch,
  timeoutMs: number,
): (req: FetchRequest, signal?: FetchCancelSignal) => Promise<GetUrlResponse> {
  const failed = (why: string): never => {
    throw new RpcFailure(why);
  };
  return async (req, signal) => {
    const abort = new AbortController();
    signal?.addListener(() => abort.abort());
    let res;
    try {
      res = await fetch(req.url, {
        method: req.method,
        headers: req.headers,
        body: req.body ?? undefined,
        timeoutMs,
        maxBytes: MAX_RPC_BYTES,
        signal: abort.signal,
      });
    } catch (err) {
      const kind = (err as { kind?: string }).kind;
      return failed(
        kind === "timeout"
          ? `no answer within ${timeoutMs} ms`
          : kind === "network" || kind === "dns"
          ? "the node could not be reached"
          : kind ?? "the call failed",
      );
    }
    if (res.status >= 400) failed(`the node answered HTTP ${res.status}`);
    else {
      const why = rpcError(res.body);
      if (why !== undefined) failed(`the node answered an error: ${why}`);
    }
    const headers: Record<string, string> = {};
    res.headers.forEach((v, k) => headers[k] = v);
    return { statusCode: res.status, statusMessage: "", headers, body: res.body };
  };
}

/** The JSON-RPC error message of a response body (one answer or a batch), else undefined. */
function rpcError(body: Uint8Array): string | undefined {
  let json: unknown;
  try {
    json = JSON.parse(decoder.decode(body));
  } catch {
    return "not JSON";
  }
  for (const one of Array.isArray(json) ? json : [json]) {
    if (typeof one !== "object" || one === null) return "not a JSON-RPC answer";
    const error = (one as { error?: { message?: unknown } }).error;
    if (error !== undefined && error !== null) {
      return typeof error.message === "string" ? error.message.slice(0, 120) : "unknown";
    }
  }
  return undefined;
}

/** A block's number and time, as `blockAt` reads them. */
export interface BlockReader {
  /** The block's timestamp (seconds), or null when there is no such block. */
  timeOf(block: number | "latest"): Promise<{ number: number; timestamp: number } | null>;
}

/** A `BlockReader` over an ethers provider. */
export function providerBlocks(provider: JsonRpcProvider): BlockReader {
  return {
    async timeOf(block) {
      const b = await provider.getBlock(block);
      return b === null ? null : { number: b.number, timestamp: b.timestamp };
    },
  };
}

/**
 * The number of the last block whose time is at or before `time`, by binary search over the chain
 * (block times never decrease); `fail` when even the first block is later.
 */
export async function blockAt(blocks: BlockReader, time: Date): Promise<Result<number>> {
  const t = Math.floor(time.getTime() / 1000);
  const latest = await blocks.timeOf("latest");
  if (latest === null) throw new Error("the node has no latest block");
  if (latest.timestamp <= t) return ok(latest.number);
  const first = await blocks.timeOf(0);
  if (first === null) throw new Error("the node has no block 0");
  if (first.timestamp > t) {
    return fail(`the chain has no block at or before ${time.toISOString()}`);
  }
  let lo = 0; // time ≤ t
  let hi = latest.number; // time > t
  while (hi - lo > 1) {
    const mid = lo + Math.floor((hi - lo) / 2);
    const b = await blocks.timeOf(mid);
    if (b === null) throw new Error(`the node has no block ${mid}`);
    if (b.timestamp <= t) lo = mid;
    else hi = mid;
  }
  return ok(lo);
}
