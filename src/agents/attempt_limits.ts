/**
 * Limits on `POST /agent/token` attempts, against guessing agent API keys without letting one
 * client lock others out. Every attempt is counted before any key is verified, atomically:
 *
 * - per client address: {@link ADDRESS_LIMIT} attempts per window, whatever they name;
 * - per org: {@link ORG_LIMIT} attempts per window that name the org or whose key finds it.
 *
 * One address can thus take at most 10 of an org's 30 attempts a minute: a flood from one
 * address is stopped there, and a valid key from another address still gets its token. There is
 * no service-wide bucket.
 *
 * Counting: the service's one rate counter, shared by every process (`kv/window_limit.ts`).
 *
 * @module
 */
import { AppError } from "../base/mod.ts";
import { takeFromWindow, type WindowLimit } from "../kv/mod.ts";

/** `max` attempts per `windowMs` (fixed windows). */
export type AttemptLimit = WindowLimit;

/** Per client address: 10 attempts a minute. */
export const ADDRESS_LIMIT: AttemptLimit = { max: 10, windowMs: 60_000 };
/** Per org: 30 attempts a minute. */
export const ORG_LIMIT: AttemptLimit = { max: 30, windowMs: 60_000 };

/** Who an attempt is counted for. */
export type AttemptScope = { address: string } | { orgId: string };

/**
 * Counts one attempt for `scope`; throws 429 with `Retry-After` (the end of the window) when the
 * window's total is past the limit.
 */
export async function takeAttempt(
  kv: Deno.Kv,
  scope: AttemptScope,
  limit: AttemptLimit,
  now: number,
): Promise<void> {
  const retryAfter = await takeFromWindow(
    kv,
    "address" in scope
      ? { kind: "token_attempts_by_address", address: scope.address }
      : { kind: "token_attempts_by_org", orgId: scope.orgId },
    limit,
    now,
  );
  if (retryAfter === undefined) return;
  const who = "address" in scope ? "from your address" : `for organization "${scope.orgId}"`;
  throw new AppError(
    "too_many_requests",
    429,
    `Too many agent token requests ${who}; try again in ${retryAfter} s.`,
    { headers: { "retry-after": String(retryAfter) } },
  );
}
