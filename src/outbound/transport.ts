/**
 * The one outbound HTTP client: `node:http`/`node:https` with a DNS lookup of its own that vets
 * every address against the policy (`policy.ts`) and pins the socket to them; a timeout, a body
 * cap, no redirects.
 *
 * @module
 */
import ipaddr from "ipaddr.js";
import http from "node:http";
import https from "node:https";
import type { LookupFunction } from "node:net";
import { Lru } from "../base/mod.ts";
import {
  bareHost,
  type HostLookup,
  type OutboundPolicy,
  parseOutboundUrl,
  resolveAndVet,
  SafeFetchError,
  systemLookup,
  vetIfLiteral,
} from "./policy.ts";

/** Options of one call. */
export interface SafeFetchInit {
  method?: string;
  headers?: Record<string, string>;
  body?: string | Uint8Array;
  /** Whole-call timeout in ms (connect, headers and body). Default 10 000. */
  timeoutMs?: number;
  /** Response body cap in bytes. Default 1 MiB. */
  maxBytes?: number;
  signal?: AbortSignal;
  /**
   * true: a 3xx answer is returned (with its `location`) instead of being a `redirect` error.
   * Redirects are never followed either way.
   */
  returnRedirects?: boolean;
}

/** A fully read response. */
export interface SafeResponse {
  status: number;
  headers: Headers;
  body: Uint8Array;
  /** ms from start to the end of the body. */
  durationMs: number;
}

/** The one outbound HTTP client: timeout, size cap, no redirects, https and address policy. */
export type SafeFetch = (url: string, init?: SafeFetchInit) => Promise<SafeResponse>;

/**
 * Builds the safe client for a policy.
 *
 * Requests go through `node:http`/`node:https` with a `lookup` of our own: the host name is
 * resolved once, every address is vetted, and the socket connects only to those addresses. So the
 * address that was checked is the address that is reached; a DNS answer that changes between a
 * check and the connection (rebinding) cannot redirect the call. TLS still verifies the host name.
 * One connection per call (no pooling across calls), closed when the body has been read.
 */
export function createSafeFetch(
  policy: OutboundPolicy,
  opts: { resolveHost?: HostLookup } = {},
): SafeFetch {
  const resolveHost = cachedLookup(opts.resolveHost ?? systemLookup);
  return async (raw, init = {}) => {
    const started = performance.now();
    const url = parseOutboundUrl(raw, policy);
    // An IP literal is vetted here; a name is vetted by the connection's own lookup.
    vetIfLiteral(bareHost(url), policy);
    const timeoutMs = init.timeoutMs ?? 10_000;
    const maxBytes = init.maxBytes ?? 1024 * 1024;
    const timeout = AbortSignal.timeout(timeoutMs);
    const signal = init.signal ? AbortSignal.any([timeout, init.signal]) : timeout;
    const failure = (err: unknown, reading: boolean): SafeFetchError => {
      if (err instanceof SafeFetchError) return err;
      if (timeout.aborted) {
        return new SafeFetchError("timeout", `No answer from ${url.host} within ${timeoutMs} ms.`);
      }
      return new SafeFetchError(
        "network",
        reading
          ? `Reading the answer from ${url.host} failed: ${errorText(err)}.`
          : `Could not reach ${url.host}: ${errorText(err)}.`,
      );
    };
    const { status, headers, body } = await exchange(url, {
      method: init.method ?? "GET",
      headers: init.headers ?? {},
      body: init.body,
      maxBytes,
      signal,
      lookup: pinnedLookup(policy, resolveHost),
      failure,
      returnRedirects: init.returnRedirects === true,
    });
    return { status, headers, body, durationMs: performance.now() - started };
  };
}

/** How long a DNS answer is reused (its addresses are vetted again at every use). */
const DNS_CACHE_MS = 30_000;
const DNS_CACHE_MAX = 1_000;

/** `resolve` with its answers remembered for {@link DNS_CACHE_MS} (failures are not). */
function cachedLookup(resolve: HostLookup): HostLookup {
  const answers = new Lru<{ addresses: string[]; until: number }>(DNS_CACHE_MAX);
  return async (host) => {
    const now = Date.now();
    const hit = answers.get(host);
    if (hit && hit.until > now) return hit.addresses;
    const addresses = await resolve(host);
    answers.set(host, { addresses, until: now + DNS_CACHE_MS });
    return addresses;
  };
}

/**
 * A `net` lookup that resolves with `resolveHost`, vets every address against the policy and
 * hands only those to the socket. Its refusal reaches the request as the SafeFetchError itself.
 */
function pinnedLookup(policy: OutboundPolicy, resolveHost: HostLookup): LookupFunction {
  return (hostname, options, callback) => {
    resolveAndVet(hostname, policy, resolveHost).then((addresses) => {
      const all = addresses.map((address) => ({
        address,
        family: ipaddr.parse(address).kind() === "ipv6" ? 6 : 4,
      }));
      const wanted = options.family === 4 || options.family === 6
        ? all.filter((a) => a.family === options.family)
        : all;
      if (wanted.length === 0) {
        callback(
          new SafeFetchError("dns", `The host "${hostname}" has no IPv${options.family} address.`),
          "",
        );
      } else if (options.all) {
        (callback as unknown as (e: null, a: typeof wanted) => void)(null, wanted);
      } else {
        callback(null, wanted[0]!.address, wanted[0]!.family);
      }
    }, (err) => callback(err, ""));
  };
}

interface ExchangeInit {
  method: string;
  headers: Record<string, string>;
  body?: string | Uint8Array;
  maxBytes: number;
  signal: AbortSignal;
  lookup: LookupFunction;
  failure: (err: unknown, reading: boolean) => SafeFetchError;
  returnRedirects: boolean;
}

/** One request, its whole body read under the cap; redirects and oversize bodies are errors. */
function exchange(
  url: URL,
  init: ExchangeInit,
): Promise<{ status: number; headers: Headers; body: Uint8Array }> {
  return new Promise((resolve, reject) => {
    let settled = false;
    let reading = false;
    const fail = (err: unknown) => {
      if (settled) return;
      settled = true;
      init.signal.removeEventListener("abort", onAbort);
      req.destroy();
      reject(init.failure(err, reading));
    };
    const headers: Record<string, string> = { ...init.headers, connection: "close" };
    if (init.body !== undefined) {
      headers["content-length"] = String(
        typeof init.body === "string"
          ? new TextEncoder().encode(init.body).length
          : init.body.length,
      );
    }
    const mod = url.protocol === "https:" ? https : http;
    const req = mod.request(url, {
      method: init.method,
      headers,
      lookup: init.lookup,
      agent: false,
    }, (res) => {
      reading = true;
      const status = res.statusCode ?? 0;
      if (status >= 300 && status < 400 && !init.returnRedirects) {
        fail(
          new SafeFetchError(
            "redirect",
            `${url.host} answered with a redirect (${status}); redirects are not followed.`,
            status,
          ),
        );
        return;
      }
      const tooLarge = () =>
        new SafeFetchError(
          "too_large",
          `The response from ${url.host} is larger than ${init.maxBytes} bytes.`,
          status,
        );
      const declared = Number(res.headers["content-length"] ?? "NaN");
      if (Number.isFinite(declared) && declared > init.maxBytes) {
        fail(tooLarge());
        return;
      }
      const chunks: Uint8Array[] = [];
      let size = 0;
      res.on("data", (chunk: Uint8Array) => {
        size += chunk.length;
        if (size > init.maxBytes) fail(tooLarge());
        else chunks.push(chunk);
      });
      res.on("error", fail);
      const cut = () => fail(new Error("the connection closed before the body ended"));
      res.on("aborted", cut);
      res.on("close", () => queueMicrotask(() => settled || cut()));
      res.on("end", () => {
        if (settled) return;
        settled = true;
        init.signal.removeEventListener("abort", onAbort);
        const out = new Headers();
        const raw = res.rawHeaders;
        for (let i = 0; i + 1 < raw.length; i += 2) {
          try {
            out.append(raw[i]!, raw[i + 1]!);
          } catch {
            // A header value fetch would refuse: left out.
          }
        }
        resolve({ status, headers: out, body: concat(chunks, size) });
      });
    });
    const onAbort = () => fail(init.signal.reason);
    if (init.signal.aborted) onAbort();
    else init.signal.addEventListener("abort", onAbort, { once: true });
    req.on("error", fail);
    req.end(init.body);
  });
}

function concat(chunks: Uint8Array[], size: number): Uint8Array {
  if (chunks.length === 1) return chunks[0]!;
  const out = new Uint8Array(size);
  let off = 0;
  for (const c of chunks) {
    out.set(c, off);
    off += c.length;
  }
  return out;
}

function errorText(err: unknown): string {
  const m = err instanceof Error ? err.message : String(err);
  return m.split("\n")[0]!.slice(0, 160);
}
