/**
 * The did:polygon plug-in (the CREDEBL platform's method): `@ayanworks/polygon-did-resolver` over
 * the networks of `DID_POLYGON_NETWORKS`. `did:polygon:0x…` is mainnet, `did:polygon:testnet:0x…`
 * testnet.
 *
 * The package keeps each network's RPC URL and registry address in an exported object
 * (`build/config.js`, `networkConfig`) that its resolver reads on every call. The loader writes the
 * configured networks into that object (the same module instance the resolver reads) and points
 * every network that is not configured at an address that cannot be reached, so the package's
 * built-in public RPC URLs are never used; a DID of such a network is answered
 * `methodNotSupported` before the driver is called. One process, one polygon configuration.
 *
 * The driver makes its own ethers 5 provider per call (it cannot be handed ours): a failure to
 * reach the node is thrown, and so answered `internalError` by the adapter.
 *
 * @module
 */
import type { PolygonNetworks } from "../../config/mod.ts";
import type { ParsedDid } from "../types.ts";
import type { DriverMap, DriverPlugin } from "./driver.ts";

/** Where the package's unconfigured networks point: a name that never resolves (RFC 6761). */
const NOWHERE = "http://unconfigured-network.invalid";

/**
 * The network a did:polygon names: `mainnet` (no network part) or `testnet`; undefined for
 * anything else, which the driver refuses as an invalid DID.
 */
export function polygonNetworkOf(parsed: ParsedDid): string | undefined {
  const parts = parsed.id.split(":");
  if (parts.length === 1) return "mainnet";
  return parts.length === 2 && parts[0] === "testnet" ? "testnet" : undefined;
}

/** The package's network settings object, as `build/config.js` exports it. */
type NetworkConfig = Record<string, { URL: string; CONTRACT_ADDRESS: string }>;

/** The did:polygon entry of `plugins.ts`. */
export function polygonPlugin(networks: PolygonNetworks): DriverPlugin {
  return {
    methods: ["polygon"],
    kind: "network",
    // the driver answers the stored document whatever representation is asked for
    didJson: "same",
    // the registry keeps only the latest document; one without keys is deactivated
    traits: {
      updatable: true,
      deactivatable: true,
      enumerable: false,
      historyAvailable: false,
      humanReadable: false,
    },
    networks: { served: Object.keys(networks), of: polygonNetworkOf },
    driver: async () => {
      const [config, resolver] = await Promise.all([
        import("@ayanworks/polygon-did-resolver/build/config.js"),
        import("@ayanworks/polygon-did-resolver"),
      ]);
      const settings = (config as unknown as { networkConfig: NetworkConfig }).networkConfig;
      for (const name of new Set([...Object.keys(settings), ...Object.keys(networks)])) {
        const n = networks[name as keyof PolygonNetworks];
        settings[name] = n === undefined
          ? { URL: NOWHERE, CONTRACT_ADDRESS: "0x0000000000000000000000000000000000000000" }
          : { URL: n.rpcUrl, CONTRACT_ADDRESS: n.registry };
      }
      return (resolver as unknown as { getResolver(): DriverMap }).getResolver();
    },
  };
}
