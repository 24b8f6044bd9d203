/**
 * The base every folder stands on: the error type and its helpers, the log, the one bounded map
 * (`Lru`). Free of npm packages and of every other folder, so that code loaded before the app (the
 * DID early lane) may use it too (tests/structure: a light entry loads no `mod.ts` but this one).
 *
 * @module
 */
export {
  AppError,
  badRequest,
  clip,
  conflict,
  ConflictError,
  forbidden,
  notFound,
  unauthorized,
  wrongState,
} from "./errors.ts";
export { log, logEnabled, type LogLevel, setLogLevel } from "./log.ts";
export { isObject, obj, str, strings } from "./json.ts";
export { KV_DATA_MAX, KV_VALUE_LIMIT } from "./kv_limits.ts";
export { lazy } from "./lazy.ts";
export { Lru } from "./lru.ts";
