/**
 * When the crons of `main.ts` fire (`Deno.cron` expressions). Each is scheduled from its interval,
 * since Deno Deploy bills every run: the outbox drain every minute, the finest schedule (outbox
 * retries are due seconds after a failure); the status recheck {@link RECHECK_TICKS_PER_INTERVAL}
 * times per `CREDENTIAL_STATUS_RECHECK_SECONDS`, so a status is rechecked at most a twenty-fourth
 * of its interval late (hourly for the default day), and once a day when rechecks are off (a run
 * that does nothing: a cron registered under a condition is one Deploy may not find).
 *
 * @module
 */

/** The crons' schedules. */
export interface CronSchedules {
  outboxDispatch: string;
  statusRecheck: string;
}

/** Periods (minutes) a cron expression keeps evenly: steps that divide an hour, a day, then daily. */
const CRON_PERIODS: [number, string][] = [
  ...[1, 2, 3, 4, 5, 6, 10, 12, 15, 20, 30].map((m): [number, string] => [
    m,
    m === 1 ? "* * * * *" : `*/${m} * * * *`,
  ]),
  ...[1, 2, 3, 4, 6, 8, 12].map((h): [number, string] => [
    h * 60,
    h === 1 ? "0 * * * *" : `0 */${h} * * *`,
  ]),
  [24 * 60, "0 0 * * *"],
];

/** The cron expression of the longest even period of at most `seconds` (at least every minute). */
export function cronEvery(seconds: number): string {
  let best = CRON_PERIODS[0]![1];
  for (const [minutes, expr] of CRON_PERIODS) if (minutes * 60 <= seconds) best = expr;
  return best;
}

/** How many times per recheck interval the recheck cron fires. */
export const RECHECK_TICKS_PER_INTERVAL = 24;

/** The schedules for a recheck interval of `recheckSeconds` (0: rechecks off). */
export function cronsFor(recheckSeconds: number): CronSchedules {
  return {
    outboxDispatch: cronEvery(60),
    statusRecheck: cronEvery(
      recheckSeconds > 0 ? recheckSeconds / RECHECK_TICKS_PER_INTERVAL : 86400,
    ),
  };
}
