/**
 * Readers of the chain settings of the DID plug-ins (`DID_ETHR_NETWORKS`, `DID_POLYGON_NETWORKS`),
 * used by `parseConfig` (config.ts): JSON checked member by member, each problem a sentence that
 * names the variable. The RPC URLs may carry API keys: no message repeats one.
 *
 * @module
 */
import { ConfigError, httpUrl } from "./readers.ts";
import { isObject } from "../base/mod.ts";

/** One did:ethr network, in ethr-did-resolver's own `networks` shape. */
export interface EthrNetwork {
  /** The name DIDs use (`did:ethr:<name>:0x…`); the chain id form is served too. */
  name?: string;
  /** Chain id (a number, or a `0x` hex string). Required: no network detection at run time. */
  chainId: number | string;
  /** JSON-RPC endpoint (http or https). */
  rpcUrl: string;
  /** ERC-1056 registry address; default ethr-did-resolver's. */
  registry?: string;
  /** Other members of ethr-did-resolver's shape (e.g. `legacyNonce`), handed on as given. */
  [member: string]: unknown;
}

/** did:polygon networks: `testnet` and/or `mainnet`. */
export type PolygonNetworks = Partial<Record<"testnet" | "mainnet", PolygonNetwork>>;

/** One did:polygon network. */
export interface PolygonNetwork {
  rpcUrl: string;
  /** The DID registry contract's address. */
  registry: string;
}

const ADDRESS = /^0x[0-9a-fA-F]{40}$/;
const NAME = /^[A-Za-z0-9._-]+(?::[A-Za-z0-9._-]+)*$/;

function json(name: string, v: string): unknown {
  try {
    return JSON.parse(v);
  } catch {
    throw new ConfigError(`${name} must be JSON; it does not parse.`);
  }
}

function rpcUrl(name: string, where: string, v: unknown): string {
  if (httpUrl(v)) return v as string;
  throw new ConfigError(`${name}: ${where} needs "rpcUrl", an absolute http(s) URL.`);
}

function address(name: string, where: string, v: unknown, required: boolean): string | undefined {
  if (v === undefined && !required) return undefined;
  if (typeof v === "string" && ADDRESS.test(v)) return v;
  throw new ConfigError(
    `${name}: ${where} needs "registry", a 0x address of 40 hex digits.`,
  );
}

/** `DID_ETHR_NETWORKS`: `[{"name","chainId","rpcUrl","registry"}, …]`; unset or empty: undefined. */
export function ethrNetworks(v: string | undefined): EthrNetwork[] | undefined {
  const NAME_ = "DID_ETHR_NETWORKS";
  if (v === undefined || v.trim() === "") return undefined;
  const list = json(NAME_, v);
  if (!Array.isArray(list) || list.length === 0) {
    throw new ConfigError(
      `${NAME_} must be a JSON array of networks, e.g. [{"name":"mainnet","chainId":1,"rpcUrl":"https://…","registry":"0x…"}].`,
    );
  }
  return list.map((n, i) => {
    const where = `network ${i + 1}`;
    if (!isObject(n)) throw new ConfigError(`${NAME_}: ${where} is not a JSON object.`);
    if (n.name !== undefined && (typeof n.name !== "string" || !NAME.test(n.name))) {
      throw new ConfigError(
        `${NAME_}: ${where} has a "name" that cannot be part of a DID.`,
      );
    }
    const chainId = n.chainId;
    const okId = (typeof chainId === "number" && Number.isSafeInteger(chainId) && chainId > 0) ||
      (typeof chainId === "string" && /^(0x[0-9a-fA-F]+|[0-9]+)$/.test(chainId) &&
        BigInt(chainId) > 0n);
    if (!okId) {
      throw new ConfigError(
        `${NAME_}: ${where} needs "chainId", a positive number or 0x hex string.`,
      );
    }
    const out: EthrNetwork = {
      ...n,
      chainId: chainId as number | string,
      rpcUrl: rpcUrl(NAME_, where, n.rpcUrl),
    };
    const registry = address(NAME_, where, n.registry, false);
    if (registry !== undefined) out.registry = registry;
    return out;
  });
}

/** `DID_POLYGON_NETWORKS`: `{"testnet":{"rpcUrl","registry"},"mainnet":{…}}`; unset: undefined. */
export function polygonNetworks(v: string | undefined): PolygonNetworks | undefined {
  const NAME_ = "DID_POLYGON_NETWORKS";
  if (v === undefined || v.trim() === "") return undefined;
  const obj = json(NAME_, v);
  if (!isObject(obj) || Object.keys(obj).length === 0) {
    throw new ConfigError(
      `${NAME_} must be a JSON object of networks, e.g. {"testnet":{"rpcUrl":"https://…","registry":"0x…"}}.`,
    );
  }
  const out: PolygonNetworks = {};
  for (const [key, n] of Object.entries(obj)) {
    if (key !== "testnet" && key !== "mainnet") {
      throw new ConfigError(
        `${NAME_}: "${key.slice(0, 40)}" is not a did:polygon network; use "testnet" or "mainnet".`,
      );
    }
    const where = `network "${key}"`;
    if (!isObject(n)) throw new ConfigError(`${NAME_}: ${where} is not a JSON object.`);
    out[key] = {
      rpcUrl: rpcUrl(NAME_, where, n.rpcUrl),
      registry: address(NAME_, where, n.registry, true)!,
    };
  }
  return out;
}
