/**
 * The durable outbox: a message is added in the same atomic operation as the change that causes
 * it (`enqueue`), and a `Dispatcher` delivers it at least once with leases, retries and dead
 * letters.
 *
 * @module
 */
export {
  enqueue,
  type OutboxAttempt,
  type OutboxInput,
  type OutboxMessage,
  readMessage,
  requeueDead,
} from "./outbox.ts";
export { Dispatcher, type DispatcherOptions } from "./dispatcher.ts";
export {
  type AttemptContext,
  DEAD_RETENTION_MS,
  type HandlerResult,
  type OutboxHandler,
  SUCCEEDED_RETENTION_MS,
} from "./handler.ts";
