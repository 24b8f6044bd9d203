import ipaddr from "ipaddr.js";
import { lookup } from "node:dns/promises";

/** Network policy for every outbound call (webhooks, did:web, DIDComm, universal resolver). */
export interface OutboundPolicy {
  /** true lets calls reach loopback/private/link-local addresses (tests, dev). */
  allowPrivate: boolean;
  /** true requires https URLs. */
  requireHttps: boolean;
}

/** Why an outbound call did not produce a usable response. */
export type SafeFetchErrorKind =
  | "invalid_url"
  | "https_required"
  | "blocked_address"
  | "dns"
  | "timeout"
  | "network"
  | "too_large"
  | "redirect";

/** An outbound call refused or failed; `message` is safe to show to the caller. */
export class SafeFetchError extends Error {
  constructor(
    readonly kind: SafeFetchErrorKind,
    message: string,
    readonly status?: number,
  ) {
    super(message);
    this.name = "SafeFetchError";
  }
}

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
}

/** A fully read response. */
export interface SafeResponse {
  status: number;
  headers: Headers;
  body: Uint8Array;
  /** ms from start to the end of the body. */
  durationMs: number;
}

/** Resolves a host name to its addresses (A and AAAA); injectable for tests of the DNS path. */
export type HostLookup = (host: string) => Promise<string[]>;

const systemLookup: HostLookup = async (host) =>
  (await lookup(host, { all: true, verbatim: true })).map((a) => a.address);

/** Describes why an address is not public, or returns undefined for a public unicast address. */
export function blockedRange(address: string): string | undefined {
  let ip: ipaddr.IPv4 | ipaddr.IPv6;
  try {
    ip = ipaddr.parse(address.replace(/^\[|\]$/g, ""));
  } catch {
    return "not an IP address";
  }
  if (ip.kind() === "ipv6") {
    const v6 = ip as ipaddr.IPv6;
    if (v6.isIPv4MappedAddress()) {
      const inner = blockedRange(v6.toIPv4Address().toString());
      return inner ? `IPv4-mapped ${inner}` : undefined;
    }
    const range = v6.range();
    return range === "unicast" ? undefined : range;
  }
  const range = (ip as ipaddr.IPv4).range();
  return range === "unicast" ? undefined : range;
}

/**
 * Checks a URL against the policy without fetching: scheme, https rule, user info, and every
 * address its host resolves to. Returns the parsed URL.
 */
export async function checkOutboundUrl(
  raw: string,
  policy: OutboundPolicy,
  resolveHost: HostLookup = systemLookup,
): Promise<URL> {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new SafeFetchError("invalid_url", `"${truncate(raw)}" is not an absolute URL.`);
  }
  if (url.protocol !== "https:" && url.protocol !== "http:") {
    throw new SafeFetchError(
      "invalid_url",
      `Only http and https URLs are allowed, not "${url.protocol}".`,
    );
  }
  if (url.username || url.password) {
    throw new SafeFetchError(
      "invalid_url",
      "URLs with user info (user:password@) are not allowed.",
    );
  }
  if (policy.requireHttps && url.protocol !== "https:") {
    throw new SafeFetchError(
      "https_required",
      `https is required, but "${url.host}" was given with http.`,
    );
  }
  if (policy.allowPrivate) return url;
  const host = url.hostname.replace(/^\[|\]$/g, "");
  let addresses: string[];
  if (ipaddr.isValid(host)) {
    addresses = [host];
  } else {
    try {
      addresses = await resolveHost(host);
    } catch {
      throw new SafeFetchError("dns", `The host "${host}" could not be resolved.`);
    }
    if (addresses.length === 0) {
      throw new SafeFetchError("dns", `The host "${host}" has no addresses.`);
    }
  }
  for (const a of addresses) {
    const why = blockedRange(a);
    if (why) {
      throw new SafeFetchError(
        "blocked_address",
        `The host "${host}" resolves to a ${why} address (${a}), which outbound calls may not reach.`,
      );
    }
  }
  return url;
}

function truncate(s: string): string {
  return s.length > 80 ? s.slice(0, 77) + "..." : s;
}

/** The one outbound HTTP client: timeout, size cap, no redirects, https and address policy. */
export type SafeFetch = (url: string, init?: SafeFetchInit) => Promise<SafeResponse>;

/** Builds the safe client for a policy. */
export function createSafeFetch(
  policy: OutboundPolicy,
  opts: { resolveHost?: HostLookup } = {},
): SafeFetch {
  return async (raw, init = {}) => {
    const started = performance.now();
    const url = await checkOutboundUrl(raw, policy, opts.resolveHost);
    const timeoutMs = init.timeoutMs ?? 10_000;
    const maxBytes = init.maxBytes ?? 1024 * 1024;
    const timeout = AbortSignal.timeout(timeoutMs);
    const signal = init.signal ? AbortSignal.any([timeout, init.signal]) : timeout;
    let res: Response;
    try {
      res = await fetch(url, {
        method: init.method ?? "GET",
        headers: init.headers,
        body: init.body as BodyInit | undefined,
        redirect: "manual",
        signal,
      });
    } catch (err) {
      if (timeout.aborted) {
        throw new SafeFetchError("timeout", `No answer from ${url.host} within ${timeoutMs} ms.`);
      }
      throw new SafeFetchError("network", `Could not reach ${url.host}: ${errorText(err)}.`);
    }
    if (res.status >= 300 && res.status < 400) {
      await res.body?.cancel().catch(() => {});
      throw new SafeFetchError(
        "redirect",
        `${url.host} answered with a redirect (${res.status}); redirects are not followed.`,
        res.status,
      );
    }
    const declared = Number(res.headers.get("content-length") ?? "NaN");
    if (Number.isFinite(declared) && declared > maxBytes) {
      await res.body?.cancel().catch(() => {});
      throw new SafeFetchError(
        "too_large",
        `The response from ${url.host} is larger than ${maxBytes} bytes.`,
        res.status,
      );
    }
    const chunks: Uint8Array[] = [];
    let size = 0;
    try {
      if (res.body) {
        for await (const chunk of res.body) {
          size += chunk.length;
          if (size > maxBytes) {
            throw new SafeFetchError(
              "too_large",
              `The response from ${url.host} is larger than ${maxBytes} bytes.`,
              res.status,
            );
          }
          chunks.push(chunk);
        }
      }
    } catch (err) {
      if (err instanceof SafeFetchError) throw err;
      if (timeout.aborted) {
        throw new SafeFetchError("timeout", `No answer from ${url.host} within ${timeoutMs} ms.`);
      }
      throw new SafeFetchError(
        "network",
        `Reading the answer from ${url.host} failed: ${errorText(err)}.`,
      );
    }
    const body = chunks.length === 1 ? chunks[0]! : concat(chunks, size);
    return {
      status: res.status,
      headers: res.headers,
      body,
      durationMs: performance.now() - started,
    };
  };
}

function concat(chunks: Uint8Array[], size: number): Uint8Array {
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
