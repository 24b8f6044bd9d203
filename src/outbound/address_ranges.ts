/**
 * Which IP addresses outbound calls may reach (unless `OUTBOUND_ALLOW_PRIVATE=true`): public
 * unicast only, after the IANA IPv4 and IPv6 Special-Purpose Address Registries.
 *
 * - IPv4: every special-purpose block is refused (private, loopback, link-local with the cloud
 *   metadata address, CGNAT, this-network, benchmarking, documentation, multicast, reserved,
 *   broadcast, the IETF protocol block and its anycast services).
 * - IPv6: only global unicast (2000::/3) outside the special blocks of the registry is allowed.
 * - IPv6 forms that carry an IPv4 address (IPv4-compatible ::/96, IPv4-mapped ::ffff:0:0/96,
 *   IPv4-translated ::ffff:0:0:0/96, NAT64 64:ff9b::/96 and 64:ff9b:1::/48, 6to4 2002::/16,
 *   Teredo 2001::/32) are judged by the IPv4 they carry (Teredo: its server and its client).
 *
 * @module
 */
import ipaddr from "ipaddr.js";

type Block = [cidr: string, why: string];

const IPV4_REFUSED: Block[] = [
  ["0.0.0.0/8", "this-network"],
  ["10.0.0.0/8", "private"],
  ["100.64.0.0/10", "shared (CGNAT)"],
  ["127.0.0.0/8", "loopback"],
  ["169.254.0.0/16", "link-local (cloud metadata)"],
  ["172.16.0.0/12", "private"],
  ["192.0.0.0/24", "IETF protocol assignments"],
  ["192.0.2.0/24", "documentation"],
  ["192.31.196.0/24", "AS112"],
  ["192.52.193.0/24", "AMT"],
  ["192.88.99.0/24", "deprecated 6to4 relay"],
  ["192.168.0.0/16", "private"],
  ["192.175.48.0/24", "AS112 direct delegation"],
  ["198.18.0.0/15", "benchmarking"],
  ["198.51.100.0/24", "documentation"],
  ["203.0.113.0/24", "documentation"],
  ["224.0.0.0/4", "multicast"],
  ["255.255.255.255/32", "broadcast"],
  ["240.0.0.0/4", "reserved"],
];

/** IPv6 blocks whose addresses carry an IPv4 address, and where it sits. */
const IPV6_EMBEDDING: [cidr: string, why: string, ipv4Of: (w: number[]) => number[][]][] = [
  ["::ffff:0:0/96", "IPv4-mapped", (w) => [v4(w[6]!, w[7]!)]],
  ["::ffff:0:0:0/96", "IPv4-translated", (w) => [v4(w[6]!, w[7]!)]],
  ["64:ff9b::/96", "NAT64", (w) => [v4(w[6]!, w[7]!)]],
  ["64:ff9b:1::/48", "local NAT64", (w) => [v4(w[6]!, w[7]!)]],
  ["2002::/16", "6to4", (w) => [v4(w[1]!, w[2]!)]],
  ["2001::/32", "Teredo", (w) => [v4(w[2]!, w[3]!), v4(~w[6]! & 0xffff, ~w[7]! & 0xffff)]],
  // Last: the IPv4-compatible form (deprecated) holds :: and ::1 too, refused before this.
  ["::/96", "IPv4-compatible", (w) => [v4(w[6]!, w[7]!)]],
];

const IPV6_REFUSED: Block[] = [
  ["::/128", "unspecified"],
  ["::1/128", "loopback"],
  ["100::/64", "discard-only"],
  ["100:0:0:1::/64", "dummy prefix"],
  ["2001::/23", "IETF protocol assignments"],
  ["2001:db8::/32", "documentation"],
  ["2620:4f:8000::/48", "AS112 direct delegation"],
  ["3fff::/20", "documentation"],
  ["5f00::/16", "segment routing"],
  ["fc00::/7", "unique local"],
  ["fe80::/10", "link-local"],
  ["fec0::/10", "deprecated site-local"],
  ["ff00::/8", "multicast"],
];

function v4(hi: number, lo: number): number[] {
  return [hi >> 8, hi & 0xff, lo >> 8, lo & 0xff];
}

const parsed = <T extends ipaddr.IPv4 | ipaddr.IPv6>(list: [string, ...unknown[]][]) =>
  list.map(([cidr, ...rest]) => [ipaddr.parseCIDR(cidr) as [T, number], ...rest] as const);

const v4Refused = parsed<ipaddr.IPv4>(IPV4_REFUSED);
const v6Embedding = parsed<ipaddr.IPv6>(IPV6_EMBEDDING);
const v6Refused = parsed<ipaddr.IPv6>(IPV6_REFUSED);
const GLOBAL_UNICAST = ipaddr.parseCIDR("2000::/3") as [ipaddr.IPv6, number];

/**
 * Why `address` may not be reached (e.g. "loopback", "IPv4-compatible loopback"), or undefined
 * for a public unicast address. Anything that is not an IP address is refused too.
 */
export function refusedRange(address: string): string | undefined {
  let ip: ipaddr.IPv4 | ipaddr.IPv6;
  try {
    ip = ipaddr.parse(address.replace(/^\[|\]$/g, "").replace(/%.*$/, ""));
  } catch {
    return "not an IP address";
  }
  if (ip.kind() === "ipv4") return refusedV4(ip as ipaddr.IPv4);
  const v6 = ip as ipaddr.IPv6;
  for (const [range, why] of v6Refused.slice(0, 2)) if (v6.match(range)) return why as string;
  for (const [range, why, ipv4Of] of v6Embedding) {
    if (!v6.match(range)) continue;
    for (const octets of (ipv4Of as (w: number[]) => number[][])(v6.parts)) {
      const inner = refusedV4(new ipaddr.IPv4(octets));
      if (inner) return `${why} ${inner}`;
    }
    return undefined;
  }
  for (const [range, why] of v6Refused) if (v6.match(range)) return why as string;
  if (!v6.match(GLOBAL_UNICAST)) return "not global unicast";
  return undefined;
}

function refusedV4(ip: ipaddr.IPv4): string | undefined {
  for (const [range, why] of v4Refused) if (ip.match(range)) return why as string;
  return undefined;
}
