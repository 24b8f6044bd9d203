/**
 * The per-source limit of the public `POST /didcomm` (CONTRACT "Operations"): at most
 * `DIDCOMM_RATE_LIMIT` messages per source address per minute, counted across every process by
 * the service's one rate counter (`kv/window_limit.ts`, as the agent token attempts are), before
 * the envelope is read. Beyond it: 429 with `Retry-After`, the seconds until the minute's window
 * ends. Fixed windows: a peer that sends at most the limit in any minute is never refused.
 *
 * @module
 */
import { AppError } from "../base/mod.ts";
import { takeFromWindow } from "../kv/mod.ts";

/** The window of the limit: one minute. */
export const INBOUND_WINDOW_MS = 60_000;

/**
 * Counts one inbound message from `address` (the client address, `http/client_address.ts`);
 * throws 429 with `Retry-After` past `perMinute` in the current minute. `perMinute` 0: no limit.
 */
export async function admitInbound(
  kv: Deno.Kv,
  address: string,
  perMinute: number,
  now: number,
): Promise<void> {
  if (perMinute === 0) return;
  const retryAfter = await takeFromWindow(
    kv,
    { kind: "didcomm_messages_by_address", address },
    { max: perMinute, windowMs: INBOUND_WINDOW_MS },
    now,
  );
  if (retryAfter === undefined) return;
  throw new AppError(
    "too_many_requests",
    429,
    `More than ${perMinute} DIDComm messages a minute came from your address; ` +
      `try again in ${retryAfter} s.`,
    { headers: { "retry-after": String(retryAfter) } },
  );
}
