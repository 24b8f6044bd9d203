/**
 * The did:ethr plug-in: `ethr-did-resolver` (ERC-1056 registry: owner changes, delegates,
 * attributes, deactivation) over the networks of `DID_ETHR_NETWORKS`, in its own `networks` shape.
 * Each network's `rpcUrl` becomes an ethers provider of ours (`chain_rpc.ts`): calls through the
 * outbound client, failures counted, so that an unreachable node, which the driver reports as
 * `notFound`, is answered `internalError`. `versionTime` becomes the `versionId` (block number) of
 * the last block at or before it. ethers and the driver are imported on first use.
 *
 * @module
 */
import type { SafeFetch } from "../../outbound/mod.ts";
import type { EthrNetwork } from "../../config/mod.ts";
import { fail, ok, type ParsedDid } from "../types.ts";
import { blockAt, providerBlocks, rpcProvider } from "./chain_rpc.ts";
import { type DriverPlugin, type LoadedDriver, transportReporter } from "./driver.ts";

/** ethr-did-resolver's reading of a method-specific id: `[<network>:]<address or public key>`. */
const IDENTIFIER = /^(.*)?(0x[0-9a-fA-F]{40}|0x[0-9a-fA-F]{66})$/;

/** The network a did:ethr names, as ethr-did-resolver reads it (`mainnet` when none). */
export function ethrNetworkOf(parsed: ParsedDid): string | undefined {
  const m = IDENTIFIER.exec(parsed.id);
  if (m === null) return undefined;
  return m[1] ? m[1].slice(0, -1) : "mainnet";
}

/** The names under which a network is served: its name and its chain id in hex (`0x1`). */
export function ethrNetworkNames(networks: readonly EthrNetwork[]): string[] {
  const names: string[] = [];
  for (const n of networks) {
    if (n.name !== undefined) names.push(n.name);
    names.push(`0x${BigInt(n.chainId).toString(16)}`);
  }
  return [...new Set(names)];
}

/** Options of `ethrPlugin`. */
export interface EthrPluginOptions {
  /** The client RPC calls go through (operator hosts: no private-address policy). */
  fetch: SafeFetch;
  /** Per-call timeout of an RPC request, ms. */
  timeoutMs: number;
}

/** The did:ethr entry of `plugins.ts`. */
export function ethrPlugin(
  networks: readonly EthrNetwork[],
  options: EthrPluginOptions,
): DriverPlugin {
  const transport = transportReporter();
  return {
    methods: ["ethr"],
    kind: "network",
    versions: true,
    // the ERC-1056 registry's events are the history (versionId is a block); owner 0x0 deactivates
    traits: {
      updatable: true,
      deactivatable: true,
      enumerable: false,
      historyAvailable: true,
      humanReadable: false,
    },
    networks: { served: ethrNetworkNames(networks), of: ethrNetworkOf },
    transport,
    driver: async () => {
      const [ethers, { getResolver }] = await Promise.all([
        import("ethers"),
        import("ethr-did-resolver"),
      ]);
      const byName = new Map<string, ReturnType<typeof rpcProvider>>();
      const configured = networks.map((n) => {
        const chainId = BigInt(n.chainId);
        const provider = rpcProvider(ethers, n.rpcUrl, chainId, { ...options, transport });
        if (n.name !== undefined) byName.set(n.name, provider);
        byName.set(`0x${chainId.toString(16)}`, provider);
        const { rpcUrl: _url, ...rest } = n;
        return { ...rest, chainId, provider };
      });
      // Our providers are ethers' ESM build; the driver's types name its CommonJS build (the
      // same classes at run time, where both imports load the ESM build).
      const settings = { networks: configured } as unknown as Parameters<typeof getResolver>[0];
      const loaded: LoadedDriver = {
        resolver: getResolver(settings),
        async versionIdAt(parsed, time) {
          const network = ethrNetworkOf(parsed);
          const provider = network === undefined ? undefined : byName.get(network);
          if (provider === undefined) return fail(`${parsed.did} names no network served here`);
          const block = await blockAt(providerBlocks(provider), time);
          return block.ok ? ok(String(block.value)) : block;
        },
      };
      return loaded;
    },
  };
}
