/**
 * Deno Deploy finds crons by evaluating the entry module: `src/main.ts` registers its crons at the
 * top level, during evaluation and before the server starts. Deploy bills every run, so each is
 * scheduled from its interval (`src/config/cron_schedules.ts`): the outbox drain every minute, the
 * status recheck 24 times per `CREDENTIAL_STATUS_RECHECK_SECONDS` (hourly for the default day).
 */
import assert from "node:assert/strict";
import { cronEvery, cronsFor } from "../../src/config/cron_schedules.ts";
import { createIdp } from "../support/context.ts";
import { serviceEnv } from "../support/service_process.ts";

/** The events `src/main.ts` makes while it starts, under `env` overrides. */
async function entryEvents(overrides: Record<string, string> = {}): Promise<string[]> {
  const dir = await Deno.makeTempDir({ prefix: "cron_" });
  try {
    const out = await new Deno.Command(Deno.execPath(), {
      args: ["run", "--allow-all", "tests/ops/fixtures/record_entry.ts"],
      cwd: new URL("../../", import.meta.url),
      env: serviceEnv(await createIdp(), dir, overrides),
      stdout: "piped",
      stderr: "piped",
      signal: AbortSignal.timeout(60_000),
    }).output();
    const stdout = new TextDecoder().decode(out.stdout);
    assert.equal(out.code, 0, new TextDecoder().decode(out.stderr));
    return JSON.parse(/EVENTS (.*)/.exec(stdout)![1]!);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
}

Deno.test("src/main.ts registers the outbox and status recheck crons while it is evaluated, before any await and before Deno.serve, each on its schedule", async () => {
  // Before the first I/O the service awaits (opening KV), and before the server starts.
  assert.deepEqual(await entryEvents(), [
    "cron:outbox-dispatch:* * * * *:during evaluation",
    "cron:credential-status-recheck:0 * * * *:during evaluation",
    "openKv",
    "serve",
  ]);
  const hourly = await entryEvents({ CREDENTIAL_STATUS_RECHECK_SECONDS: "3600" });
  assert.equal(hourly[1], "cron:credential-status-recheck:*/2 * * * *:during evaluation");
});

Deno.test("cron schedules: the longest even period within the interval, from every minute to daily", () => {
  const cases: [number, string][] = [
    [0, "* * * * *"],
    [59, "* * * * *"],
    [60, "* * * * *"],
    [150, "*/2 * * * *"],
    [299, "*/4 * * * *"],
    [300, "*/5 * * * *"],
    [3599, "*/30 * * * *"],
    [3600, "0 * * * *"],
    [5 * 3600, "0 */4 * * *"],
    [12 * 3600, "0 */12 * * *"],
    [86400, "0 0 * * *"],
    [7 * 86400, "0 0 * * *"],
  ];
  for (const [seconds, expr] of cases) assert.equal(cronEvery(seconds), expr, `${seconds} s`);
  assert.deepEqual(cronsFor(86400), {
    outboxDispatch: "* * * * *",
    statusRecheck: "0 * * * *",
  });
  assert.equal(cronsFor(30 * 86400).statusRecheck, "0 0 * * *");
  assert.equal(cronsFor(600).statusRecheck, "* * * * *");
  // Rechecks off: one run a day that does nothing (registered all the same, where Deploy finds it).
  assert.equal(cronsFor(0).statusRecheck, "0 0 * * *");
});
