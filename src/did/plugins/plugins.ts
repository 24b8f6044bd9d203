/**
 * The DID method plug-ins of this instance: DIF `did-resolver` drivers, each made a method of the
 * resolver by `driver.ts` (cache, TTL, coalescing, status codes, `Accept`, dereferencing and the
 * `/1.0/…` routes as for a built-in method). **This is the one file an operator edits to add a
 * driver**: add an entry to the list below, and the driver's package to `deno.json` `imports`.
 *
 * An entry is a `DriverPlugin`:
 *
 * ```ts
 * {
 *   methods: ["example"],           // the keys of the driver's getResolver() map
 *   kind: "network",                // or "deterministic" (a pure function of the DID)
 *   driver: async () => (await import("example-did-resolver")).getResolver(),
 *   timeoutMs: 5000,                // optional; default DID_DRIVER_TIMEOUT_MS
 * }
 * ```
 *
 * Load the driver with `import()` inside `driver` (as here), so that its code is read on first use
 * and never slows the start of a process that does not resolve that method. A driver reaches only
 * the hosts its settings name; a DID cannot name where it is resolved.
 *
 * @module
 */
import type { Config } from "../../config/mod.ts";
import type { SafeFetch } from "../../outbound/mod.ts";
import { DERIVED_DID_TRAITS } from "../types.ts";
import type { DriverPlugin } from "./driver.ts";
import { ethrPlugin } from "./ethr.ts";
import { polygonPlugin } from "./polygon.ts";

/** What the plug-ins are configured from. */
export interface PluginSettings {
  config: Pick<Config, "didEthrNetworks" | "didPolygonNetworks" | "didDriverTimeoutMs">;
  /** The outbound client for operator-configured hosts (chain RPC URLs). */
  operatorFetch: SafeFetch;
}

/** The plug-in drivers served, in order (a method of a later entry replaces an earlier one). */
export function pluginDrivers({ config, operatorFetch }: PluginSettings): DriverPlugin[] {
  const plugins: DriverPlugin[] = [
    // did:pkh (eip155, bip122, tezos accounts): always on; no network.
    {
      methods: ["pkh"],
      kind: "deterministic",
      // an account address: it never changes, and nothing can be listed or read out of it
      traits: DERIVED_DID_TRAITS,
      driver: async () => (await import("pkh-did-resolver")).getResolver(),
    },
  ];
  // did:ethr through ethr-did-resolver, on the networks of DID_ETHR_NETWORKS.
  if (config.didEthrNetworks !== undefined) {
    plugins.push(ethrPlugin(config.didEthrNetworks, {
      fetch: operatorFetch,
      timeoutMs: config.didDriverTimeoutMs,
    }));
  }
  // did:polygon through @ayanworks/polygon-did-resolver, on the networks of DID_POLYGON_NETWORKS.
  if (config.didPolygonNetworks !== undefined) {
    plugins.push(polygonPlugin(config.didPolygonNetworks));
  }
  // Add a driver here (see the example above).
  return plugins;
}
