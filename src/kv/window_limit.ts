/**
 * The one rate counter of the service, shared by every process on the KV database: `max` events
 * per fixed window, counted in one KV entry per window with a versionstamp-checked increment
 * (`atomicUpdate`). An event reads the count, is refused when it is at the limit, and otherwise
 * commits count + 1; a lost race reads again. Every increment is one committed event, so exactly
 * the first `max` events of a window are admitted however many run at once, in however many
 * processes; each lost race means another event won, so an event retries at most `max` times
 * before the count is full. Users: the agent token attempts (`agents/attempt_limits.ts`) and
 * inbound DIDComm messages per source address (`didcomm/inbound_limit.ts`).
 *
 * @module
 */
import { keys } from "./keys.ts";
import { atomicUpdate } from "./store.ts";

/** `max` events per `windowMs` (fixed windows). */
export interface WindowLimit {
  max: number;
  windowMs: number;
}

/** What is counted: one of the keyspace's counters (`kv/keys.ts`). */
export type WindowCounter =
  | { kind: "token_attempts_by_address"; address: string }
  | { kind: "token_attempts_by_org"; orgId: string }
  | { kind: "didcomm_messages_by_address"; address: string };

function counterKey(counter: WindowCounter, window: number): Deno.KvKey {
  switch (counter.kind) {
    case "token_attempts_by_address":
      return keys.tokenAttemptsByAddress(counter.address, window);
    case "token_attempts_by_org":
      return keys.tokenAttemptsByOrg(counter.orgId, window);
    case "didcomm_messages_by_address":
      return keys.didcommMessagesByAddress(counter.address, window);
  }
}

/**
 * Counts one event of `counter` in the window of `now`. Resolves undefined when it is admitted,
 * else with the seconds until the window ends (the `Retry-After` of a refusal). An event whose
 * every try lost its race (not expected: see the module doc) is refused rather than let through
 * uncounted.
 */
export async function takeFromWindow(
  kv: Deno.Kv,
  counter: WindowCounter,
  limit: WindowLimit,
  now: number,
): Promise<number | undefined> {
  const window = Math.floor(now / limit.windowMs);
  const key = counterKey(counter, window);
  const admitted = await atomicUpdate(kv, async (op) => {
    const cur = await kv.get<number>(key);
    const count = cur.value ?? 0;
    if (count >= limit.max) return false;
    op.check(cur).set(key, count + 1, { expireIn: 2 * limit.windowMs });
    return true;
  }, { tries: limit.max + 5, conflict: () => new StillBusy() }).catch((err) => {
    if (err instanceof StillBusy) return false;
    throw err;
  });
  if (admitted) return undefined;
  return Math.max(1, Math.ceil(((window + 1) * limit.windowMs - now) / 1000));
}

/** Every try lost its race. */
class StillBusy extends Error {}
