/**
 * The service's configuration, read from the environment by `parseConfig` only (every variable,
 * its reader from `readers.ts`, its default and the rules between variables).
 *
 * @module
 */
import {
  type EthrNetwork,
  ethrNetworks,
  type PolygonNetworks,
  polygonNetworks,
} from "./networks.ts";
import {
  bool,
  ConfigError,
  host,
  httpUrl,
  int,
  list,
  origins,
  str,
  url,
  urlPrefixes,
} from "./readers.ts";

export { ConfigError };

/** The service's configuration (`parseConfig`). */
export interface Config {
  port: number;
  /** The address the server listens on (`LISTEN_HOST`). */
  listenHost: string;
  /** KV path, ":memory:", or undefined for the platform database (Deno Deploy). */
  kvPath: string | undefined;
  publicUrl: string;
  devMode: boolean;
  auth: {
    jwksUrl?: string;
    publicKey?: string;
    /** Required `iss`; in dev mode the dev issuer. */
    issuer: string;
    audience: string[];
    algorithms: string[];
  };
  /** 32 bytes; undefined only in dev mode before the dev bootstrap fills it in. */
  secretsKey: Uint8Array | undefined;
  /** SECRETS_KEY_PREVIOUS: keys being rotated out; sealed values still open with them. */
  previousSecretsKeys: Uint8Array[];
  outbound: { allowPrivate: boolean; requireHttps: boolean };
  didCacheTtlSeconds: number;
  /** `DID_CACHE_MAX_STALE_SECONDS`: how long past its TTL a network answer is served while refreshed. */
  didCacheMaxStaleSeconds: number;
  didResolutionPublic: boolean;
  universalResolverUrl: string | undefined;
  /** `DID_ETHR_NETWORKS`: did:ethr networks (ethr-did-resolver's shape); undefined: not served. */
  didEthrNetworks: EthrNetwork[] | undefined;
  /** `DID_POLYGON_NETWORKS`: did:polygon networks; undefined: not served. */
  didPolygonNetworks: PolygonNetworks | undefined;
  /** `DID_DRIVER_TIMEOUT_MS`: longest one plug-in driver call may take. */
  didDriverTimeoutMs: number;
  /** `DID_PLC_DIRECTORY_URL`: the PLC directory did:plc operation logs are read from. */
  didPlcDirectoryUrl: string;
  /** `DID_TEST_IDENTIFIERS`: extra examples for `/1.0/testIdentifiers` (e.g. a did:web of one's own). */
  didTestIdentifiers: string[];
  logLevel: "debug" | "info" | "warn" | "error";
  /** How long a dispatcher's claim on an outbox message lasts (`OUTBOX_LEASE_SECONDS`). */
  outboxLeaseSeconds: number;
  /** `TRUST_PROXY_HEADERS`: a proxy of the operator's appends the client address to X-Forwarded-For. */
  trustProxyHeaders: boolean;
  /**
   * `OID4VP_X509_TRUST_ANCHORS`: the CA certificates `x509_san_dns` OpenID4VP requests must chain
   * to, as a PEM bundle or the path of one (read when the services are built); unset: such
   * requests are refused.
   */
  oid4vpX509TrustAnchors: { pem: string } | { path: string } | undefined;
  /**
   * `JSONLD_CONTEXT_ALLOW`: URL prefixes from which JSON-LD contexts that are not bundled may be
   * fetched (once, then kept in KV). Empty: bundled contexts only.
   */
  jsonldContextAllow: string[];
  /** `CREDENTIAL_STATUS_RECHECK_SECONDS`: how often stored credentials' status is checked again (0: never by the cron). */
  credentialStatusRecheckSeconds: number;
  /**
   * `CORS_ORIGINS`: the web origins (`https://wallet.example`) allowed to call the routes other
   * than DID resolution from a browser. Empty: none (same-origin only).
   */
  corsOrigins: string[];
}

/** Issuer and audience of dev-mode tokens. */
export const DEV_ISSUER = "urn:ssi-edge:dev";
export const DEV_AUDIENCE = "ssi-edge";

const ALGS = new Set([
  "RS256",
  "RS384",
  "RS512",
  "PS256",
  "PS384",
  "PS512",
  "ES256",
  "ES384",
  "ES512",
  "EdDSA",
]);

const LOG_LEVELS = ["debug", "info", "warn", "error"] as const;

/** Every variable and its reader, in the order they are checked (the first problem is reported). */
const fields = {
  PORT: int("PORT", 0, 65535),
  LISTEN_HOST: host("LISTEN_HOST"),
  OUTBOX_LEASE_SECONDS: int("OUTBOX_LEASE_SECONDS", 1, 3600),
  TRUST_PROXY_HEADERS: bool("TRUST_PROXY_HEADERS"),
  KV_PATH: str,
  DENO_KV_ACCESS_TOKEN: str,
  PUBLIC_URL: url("PUBLIC_URL"),
  AUTH_JWKS_URL: url("AUTH_JWKS_URL"),
  AUTH_PUBLIC_KEY: str,
  AUTH_ISSUER: str,
  AUTH_AUDIENCE: str,
  AUTH_ALGORITHMS: str,
  DEV_MODE: bool("DEV_MODE"),
  SECRETS_KEY: str,
  SECRETS_KEY_PREVIOUS: str,
  OUTBOUND_ALLOW_PRIVATE: bool("OUTBOUND_ALLOW_PRIVATE"),
  OUTBOUND_REQUIRE_HTTPS: bool("OUTBOUND_REQUIRE_HTTPS"),
  DID_CACHE_TTL_SECONDS: int("DID_CACHE_TTL_SECONDS", 0, 86400 * 30),
  DID_CACHE_MAX_STALE_SECONDS: int("DID_CACHE_MAX_STALE_SECONDS", 0, 86400 * 30),
  DID_RESOLUTION_PUBLIC: bool("DID_RESOLUTION_PUBLIC"),
  UNIVERSAL_RESOLVER_URL: url("UNIVERSAL_RESOLVER_URL"),
  DID_ETHR_NETWORKS: ethrNetworks,
  DID_POLYGON_NETWORKS: polygonNetworks,
  DID_DRIVER_TIMEOUT_MS: int("DID_DRIVER_TIMEOUT_MS", 100, 600_000),
  DID_PLC_DIRECTORY_URL: url("DID_PLC_DIRECTORY_URL"),
  DID_TEST_IDENTIFIERS: (v: string | undefined): string[] => {
    const dids = list(v);
    for (const did of dids) {
      if (!/^did:[a-z0-9]+:[A-Za-z0-9._:%-]*[A-Za-z0-9._%-]$/.test(did)) {
        throw new ConfigError(
          `DID_TEST_IDENTIFIERS must be a comma-separated list of DIDs; "${
            did.slice(0, 60)
          }" is not a DID`,
        );
      }
    }
    return dids;
  },
  OID4VP_X509_TRUST_ANCHORS: (v: string | undefined): Config["oid4vpX509TrustAnchors"] => {
    const t = v?.trim();
    if (!t) return undefined;
    if (t.includes("-----BEGIN")) {
      if (!t.includes("-----BEGIN CERTIFICATE-----")) {
        throw new ConfigError(
          "OID4VP_X509_TRUST_ANCHORS is PEM text without a -----BEGIN CERTIFICATE----- block; give the CA certificates (or the path of a PEM file).",
        );
      }
      return { pem: t };
    }
    return { path: t };
  },
  JSONLD_CONTEXT_ALLOW: urlPrefixes("JSONLD_CONTEXT_ALLOW"),
  CREDENTIAL_STATUS_RECHECK_SECONDS: int("CREDENTIAL_STATUS_RECHECK_SECONDS", 0, 86400 * 365),
  CORS_ORIGINS: origins("CORS_ORIGINS"),
  LOG_LEVEL: (v: string | undefined): Config["logLevel"] | undefined => {
    if (v === undefined) return undefined;
    if ((LOG_LEVELS as readonly string[]).includes(v)) return v as Config["logLevel"];
    throw new ConfigError(`LOG_LEVEL must be one of ${LOG_LEVELS.join(", ")}, got "${v}"`);
  },
};

type Env = { [K in keyof typeof fields]: ReturnType<(typeof fields)[K]> };

/** Decodes SECRETS_KEY (base64 of exactly 32 bytes); `name` is the variable errors name. */
export function decodeSecretsKey(value: string, name = "SECRETS_KEY"): Uint8Array {
  let bytes: Uint8Array;
  try {
    bytes = Uint8Array.from(atob(value.trim()), (c) => c.charCodeAt(0));
  } catch {
    throw new ConfigError(`${name} must be base64 of 32 random bytes; it is not valid base64.`);
  }
  if (bytes.length !== 32) {
    throw new ConfigError(
      `${name} must be base64 of 32 random bytes; it decodes to ${bytes.length} bytes.`,
    );
  }
  return bytes;
}

/** SECRETS_KEY_PREVIOUS: comma-separated earlier keys, still accepted for opening. */
function decodePreviousKeys(value: string | undefined): Uint8Array[] {
  return list(value).map((v, i) =>
    decodeSecretsKey(v, `SECRETS_KEY_PREVIOUS (key ${i + 1} of the comma-separated list)`)
  );
}

/** Reads and checks every variable; throws ConfigError naming the first unusable one. Pure. */
export function parseConfig(env: Record<string, string | undefined>): Config {
  const read: Record<string, unknown> = {};
  for (const [name, field] of Object.entries(fields)) read[name] = field(env[name]);
  const e = read as Env;
  const devMode = e.DEV_MODE ?? false;
  const port = e.PORT ?? 8000;

  const algorithms = list(e.AUTH_ALGORITHMS ?? "RS256,ES256,EdDSA");
  for (const a of algorithms) {
    if (!ALGS.has(a)) {
      throw new ConfigError(
        `AUTH_ALGORITHMS lists "${a}", which is not an allowed asymmetric JWS algorithm (${
          [...ALGS].join(", ")
        }).`,
      );
    }
  }
  if (algorithms.length === 0) {
    throw new ConfigError("AUTH_ALGORITHMS must name at least one algorithm.");
  }

  if (e.AUTH_PUBLIC_KEY !== undefined && e.AUTH_PUBLIC_KEY.trim() !== "") {
    const k = e.AUTH_PUBLIC_KEY.trim();
    if (!k.startsWith("-----BEGIN PUBLIC KEY-----") && !k.startsWith("{")) {
      throw new ConfigError(
        "AUTH_PUBLIC_KEY must be a PEM (SPKI, -----BEGIN PUBLIC KEY-----) or a JWK JSON object.",
      );
    }
    if (k.startsWith("{")) {
      try {
        const j = JSON.parse(k);
        if (typeof j !== "object" || j === null || typeof j.kty !== "string") throw new Error();
        if ("d" in j) {
          throw new ConfigError("AUTH_PUBLIC_KEY is a private JWK; give only the public key.");
        }
      } catch (err) {
        if (err instanceof ConfigError) throw err;
        throw new ConfigError(
          'AUTH_PUBLIC_KEY looks like JSON but is not a JWK object with "kty".',
        );
      }
    }
  }
  const hasKey = Boolean(e.AUTH_JWKS_URL) || Boolean(e.AUTH_PUBLIC_KEY?.trim());
  if (!devMode) {
    if (!hasKey) {
      throw new ConfigError(
        "AUTH_JWKS_URL or AUTH_PUBLIC_KEY is required (set DEV_MODE=true for local development).",
      );
    }
    if (!e.AUTH_ISSUER) throw new ConfigError("AUTH_ISSUER is required outside DEV_MODE.");
    if (!e.AUTH_AUDIENCE) throw new ConfigError("AUTH_AUDIENCE is required outside DEV_MODE.");
    if (!e.SECRETS_KEY) {
      throw new ConfigError(
        "SECRETS_KEY is required outside DEV_MODE (base64 of 32 random bytes).",
      );
    }
  }
  const secretsKey = e.SECRETS_KEY ? decodeSecretsKey(e.SECRETS_KEY) : undefined;
  const previousSecretsKeys = decodePreviousKeys(e.SECRETS_KEY_PREVIOUS);
  if (previousSecretsKeys.length > 0 && !secretsKey) {
    throw new ConfigError("SECRETS_KEY_PREVIOUS needs SECRETS_KEY (the new key) beside it.");
  }
  const audience = list(e.AUTH_AUDIENCE ?? DEV_AUDIENCE);

  if (e.KV_PATH && /^[a-z][a-z0-9+.-]*:\/\//i.test(e.KV_PATH)) {
    // A KV Connect URL (a self-hosted denokv server, or another database reached over HTTP).
    const u = httpUrl(e.KV_PATH);
    if (!u || u.username || u.password) {
      throw new ConfigError(
        `KV_PATH "${e.KV_PATH}" looks like a URL but is not a KV Connect URL (http(s)://host[:port], no user info).`,
      );
    }
    if (!e.DENO_KV_ACCESS_TOKEN) {
      throw new ConfigError(
        "KV_PATH is a KV Connect URL; set DENO_KV_ACCESS_TOKEN to the database's access token.",
      );
    }
  }

  return {
    port,
    listenHost: e.LISTEN_HOST ?? (devMode ? "127.0.0.1" : "0.0.0.0"),
    kvPath: e.KV_PATH || (devMode ? ".data/kv.sqlite3" : undefined),
    publicUrl: e.PUBLIC_URL ?? `http://localhost:${port}`,
    devMode,
    auth: {
      jwksUrl: e.AUTH_JWKS_URL,
      publicKey: e.AUTH_PUBLIC_KEY?.trim() || undefined,
      issuer: e.AUTH_ISSUER ?? DEV_ISSUER,
      audience,
      algorithms,
    },
    secretsKey,
    previousSecretsKeys,
    outbound: {
      // Dev mode reaches a local agent endpoint, webhook receiver or did:web host; an explicit
      // OUTBOUND_ALLOW_PRIVATE=false still wins.
      allowPrivate: e.OUTBOUND_ALLOW_PRIVATE ?? devMode,
      requireHttps: e.OUTBOUND_REQUIRE_HTTPS ?? !devMode,
    },
    didCacheTtlSeconds: e.DID_CACHE_TTL_SECONDS ?? 300,
    didCacheMaxStaleSeconds: e.DID_CACHE_MAX_STALE_SECONDS ?? 86400,
    didResolutionPublic: e.DID_RESOLUTION_PUBLIC ?? false,
    universalResolverUrl: e.UNIVERSAL_RESOLVER_URL,
    didEthrNetworks: e.DID_ETHR_NETWORKS,
    didPolygonNetworks: e.DID_POLYGON_NETWORKS,
    didDriverTimeoutMs: e.DID_DRIVER_TIMEOUT_MS ?? 10_000,
    didPlcDirectoryUrl: e.DID_PLC_DIRECTORY_URL ?? "https://plc.directory",
    didTestIdentifiers: e.DID_TEST_IDENTIFIERS,
    logLevel: e.LOG_LEVEL ?? "info",
    outboxLeaseSeconds: e.OUTBOX_LEASE_SECONDS ?? 30,
    trustProxyHeaders: e.TRUST_PROXY_HEADERS ?? false,
    oid4vpX509TrustAnchors: e.OID4VP_X509_TRUST_ANCHORS,
    jsonldContextAllow: e.JSONLD_CONTEXT_ALLOW,
    credentialStatusRecheckSeconds: e.CREDENTIAL_STATUS_RECHECK_SECONDS ?? 86400,
    corsOrigins: e.CORS_ORIGINS,
  };
}
