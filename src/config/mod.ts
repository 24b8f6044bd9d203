/**
 * The configuration: `parseConfig(env)`, where every environment variable is read, its readers,
 * the networks of the chain plug-ins and the crons' schedules.
 *
 * @module
 */
export {
  type Config,
  ConfigError,
  cronSchedules,
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
export { type CronSchedules } from "./cron_schedules.ts";
