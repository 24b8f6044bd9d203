/**
 * Deno Deploy finds crons by evaluating the entry module: `src/main.ts` registers its outbox cron
 * at the top level, during evaluation and before the server starts.
 */
import assert from "node:assert/strict";
import { createIdp } from "../support/context.ts";
import { serviceEnv } from "../support/service_process.ts";

Deno.test("src/main.ts registers the outbox and status recheck crons while it is evaluated, before any await and before Deno.serve", async () => {
  const dir = await Deno.makeTempDir({ prefix: "cron_" });
  try {
    const out = await new Deno.Command(Deno.execPath(), {
      args: ["run", "--allow-all", "tests/ops/fixtures/record_entry.ts"],
      cwd: new URL("../../", import.meta.url),
      env: serviceEnv(await createIdp(), dir),
      stdout: "piped",
      stderr: "piped",
      signal: AbortSignal.timeout(60_000),
    }).output();
    const stdout = new TextDecoder().decode(out.stdout);
    assert.equal(out.code, 0, new TextDecoder().decode(out.stderr));
    const events = JSON.parse(/EVENTS (.*)/.exec(stdout)![1]!);
    // Before the first I/O the service awaits (opening KV), and before the server starts.
    assert.deepEqual(events, [
      "cron:outbox-dispatch:during evaluation",
      "cron:credential-status-recheck:during evaluation",
      "openKv",
      "serve",
    ]);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});
