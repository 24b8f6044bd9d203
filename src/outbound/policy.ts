/**
 * The outbound address policy: which URLs and addresses outbound calls (webhooks, did:web,
 * DIDComm, invitations, the universal resolver) may reach. Pure checks plus DNS resolution; the
 * transport (`transport.ts`) applies them to the addresses it connects to.
 *
 * @module
 */
import ipaddr from "ipaddr.js";
import { lookup } from "node:dns/promises";
import { refusedRange } from "./address_ranges.ts";
import { clip } from "../base/mod.ts";

/** Network policy for every outbound call (webhooks, did:web, DIDComm, universal resolver). */
export interface OutboundPolicy {
  /** true lets calls reach loopback/private/link-local addresses (tests, dev). */
  allowPrivate: boolean;
  /** true requires https URLs. */
  requireHttps: boolean;
}

/** How a refusal of a private address names the setting that allows it. */
export const ALLOW_PRIVATE_HINT =
  "(OUTBOUND_ALLOW_PRIVATE=true allows private addresses; it is the default in DEV_MODE)";

/** How a refusal of plain http names the setting that allows it. */
export const REQUIRE_HTTPS_HINT =
  "(OUTBOUND_REQUIRE_HTTPS=false allows http; it is the default in DEV_MODE)";

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

/** Resolves a host name to its addresses (A and AAAA); injectable for tests of the DNS path. */
export type HostLookup = (host: string) => Promise<string[]>;

export const systemLookup: HostLookup = async (host) =>
  (await lookup(host, { all: true, verbatim: true })).map((a) => a.address);

/** Describes why an address is not public, or returns undefined for a public unicast address. */
export const blockedRange: (address: string) => string | undefined = refusedRange;

/** The syntactic rules: absolute http(s) URL, no user info, https when required. */
export function parseOutboundUrl(raw: string, policy: OutboundPolicy): URL {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new SafeFetchError("invalid_url", `"${clip(raw, 80)}" is not an absolute URL.`);
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
      `https is required, but "${url.host}" was given with http ${REQUIRE_HTTPS_HINT}.`,
    );
  }
  return url;
}

export function bareHost(url: URL): string {
  return url.hostname.replace(/^\[|\]$/g, "");
}

/** Throws blocked_address unless every address is public (or private ones are allowed). */
export function vetAddresses(host: string, addresses: string[], policy: OutboundPolicy): void {
  if (policy.allowPrivate) return;
  for (const a of addresses) {
    const why = blockedRange(a);
    if (why) {
      throw new SafeFetchError(
        "blocked_address",
        `The host "${host}" resolves to a ${why} address (${a}), which outbound calls may not reach ${ALLOW_PRIVATE_HINT}.`,
      );
    }
  }
}

/** Vets `host` when it is an IP literal (true); false for a name, which needs resolving. */
export function vetIfLiteral(host: string, policy: OutboundPolicy): boolean {
  if (!ipaddr.isValid(host)) return false;
  vetAddresses(host, [host], policy);
  return true;
}

/** Resolves a host name (dns errors as SafeFetchError) and vets every address it has. */
export async function resolveAndVet(
  host: string,
  policy: OutboundPolicy,
  resolveHost: HostLookup,
): Promise<string[]> {
  let addresses: string[];
  try {
    addresses = await resolveHost(host);
  } catch {
    throw new SafeFetchError("dns", `The host "${host}" could not be resolved.`);
  }
  if (addresses.length === 0) {
    throw new SafeFetchError("dns", `The host "${host}" has no addresses.`);
  }
  vetAddresses(host, addresses, policy);
  return addresses;
}

/**
 * Checks a URL against the policy without fetching: scheme, https rule, user info, and every
 * address its host resolves to. Returns the parsed URL. (At request time the safe client vets
 * the addresses it connects to itself, from the same DNS answer: see `createSafeFetch`.)
 */
export async function checkOutboundUrl(
  raw: string,
  policy: OutboundPolicy,
  resolveHost: HostLookup = systemLookup,
): Promise<URL> {
  const url = parseOutboundUrl(raw, policy);
  if (policy.allowPrivate) return url;
  const host = bareHost(url);
  if (!vetIfLiteral(host, policy)) await resolveAndVet(host, policy, resolveHost);
  return url;
}
