/**
 * The configuration: `parseConfig(env)`, where every environment variable is read, its readers
 * and the networks of the chain plug-ins.
 *
 * @module
 */
export {
  type Config,
  ConfigError,
  decodeSecretsKey,
  DEV_AUDIENCE,
  DEV_ISSUER,
  parseConfig,
} from "./config.ts";
export {
  type EthrNetwork,
  ethrNetworks,
  type PolygonNetwork,
  type PolygonNetworks,
  polygonNetworks,
} from "./networks.ts";
