/**
 * Deno KV: the keyspace (every key builder), ids, and the storage helpers every feature uses
 * (list pages, the one read-modify-write loop and its conflict policy, the one busy-file retry
 * layer).
 *
 * @module
 */
export { keys } from "./keys.ts";
export { type BusyRetryOptions, withBusyRetry } from "./busy_retry.ts";
export { timeId, uuidv7 } from "./ids.ts";
export { type LeaseOptions, withLease } from "./lease.ts";
export {
  atomicUpdate,
  type AtomicUpdateOptions,
  CONFLICT_TRIES,
  listPage,
  listRecords,
  type Page,
} from "./store.ts";
