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
 * Counting: one counter per window, taken with a versionstamp-checked increment (`atomicUpdate`):
 * an attempt reads the count, is refused when it is at the limit, and otherwise commits count + 1;
 * a lost race reads again. Every increment is one committed attempt, so exactly the first `max`
 * attempts of a window proceed, however many run at once; each lost race means another attempt
 * won, so an attempt retries at most `max` times before the count is full.
 *
 * @module
 */
import { AppError } from "../base/mod.ts";
import { atomicUpdate, keys } from "../kv/mod.ts";

/** `max` attempts per `windowMs` (fixed windows). */
export interface AttemptLimit {
  max: number;
  windowMs: number;
}

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
  const window = Math.floor(now / limit.windowMs);
  const key = "address" in scope
    ? keys.tokenAttemptsByAddress(scope.address, window)
    : keys.tokenAttemptsByOrg(scope.orgId, window);
  const admitted = await atomicUpdate(kv, async (op) => {
    const cur = await kv.get<number>(key);
    const count = cur.value ?? 0;
    if (count >= limit.max) return false;
    op.check(cur).set(key, count + 1, { expireIn: 2 * limit.windowMs });
    return true;
  }, { tries: limit.max + 5, conflict: () => new StillBusy() }).catch((err) => {
    if (err instanceof StillBusy) return false; // refused rather than let through uncounted
    throw err;
  });
  if (admitted) return;
  const retryAfter = Math.max(1, Math.ceil(((window + 1) * limit.windowMs - now) / 1000));
  const who = "address" in scope ? "from your address" : `for organization "${scope.orgId}"`;
  throw new AppError(
    "too_many_requests",
    429,
    `Too many agent token requests ${who}; try again in ${retryAfter} s.`,
    { headers: { "retry-after": String(retryAfter) } },
  );
}

/** Every try lost its race (not expected: each lost race is another attempt counted). */
class StillBusy extends Error {}
