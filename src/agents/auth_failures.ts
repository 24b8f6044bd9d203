/**
 * Slows down guessing of agent API keys: failed `POST /agent/token` attempts are counted per org
 * in a fixed window (`keys.agentAuthFailures(orgId)`); past the limit the org's token requests get
 * 429 with `Retry-After` until the window ends, whatever key they carry.
 *
 * Attempts that name no org and match no key are counted under {@link ANONYMOUS}, an id no org
 * can have (org ids start with a letter or digit), with a higher limit.
 *
 * @module
 */
import { AppError } from "../errors.ts";
import { atomicUpdate, keys } from "../kv/mod.ts";

/** Counter id of attempts that identify no org. */
export const ANONYMOUS = "*";

/** Failure limits: `max` failures per `windowMs`. */
export interface FailureLimit {
  max: number;
  windowMs: number;
}

/** Per org: 5 failures in 60 s. */
export const ORG_LIMIT: FailureLimit = { max: 5, windowMs: 60_000 };
/** Attempts naming no org and matching nothing: 100 in 60 s, service-wide. */
export const ANONYMOUS_LIMIT: FailureLimit = { max: 100, windowMs: 60_000 };

interface Window {
  count: number;
  start: number;
}

/** Throws 429 with `Retry-After` (seconds) while `id` is over its limit. */
export async function assertNotThrottled(
  kv: Deno.Kv,
  id: string,
  limit: FailureLimit,
  now: number,
): Promise<void> {
  const w = (await kv.get<Window>(keys.agentAuthFailures(id))).value;
  if (!w || now >= w.start + limit.windowMs || w.count < limit.max) return;
  const retryAfter = Math.max(1, Math.ceil((w.start + limit.windowMs - now) / 1000));
  throw new AppError(
    "too_many_requests",
    429,
    `Too many failed agent token requests${
      id === ANONYMOUS ? "" : ` for organization "${id}"`
    }; try again in ${retryAfter} s.`,
    { headers: { "retry-after": String(retryAfter) } },
  );
}

/** Counts one failure for `id` (version-checked, retried on contention; a lost count is dropped). */
export async function recordFailure(
  kv: Deno.Kv,
  id: string,
  limit: FailureLimit,
  now: number,
): Promise<void> {
  const key = keys.agentAuthFailures(id);
  await atomicUpdate(kv, async (op) => {
    const cur = await kv.get<Window>(key);
    const w = cur.value;
    const next: Window = !w || now >= w.start + limit.windowMs
      ? { count: 1, start: now }
      : { count: w.count + 1, start: w.start };
    op.check(cur).set(key, next, { expireIn: limit.windowMs * 2 });
  }, { tries: 10 }).catch(() => {});
}
